package sim

import (
	"net/url"

	"github.com/etalake/etalake/wire"
)

// The simulator's request checks, written from the spec and not borrowed
// from the client (package extract): the conformance tests run the real
// client against this service, so a shared validator would make a client
// bug agree with itself. validate_differential_test.go compares the two.

// portCode checks a port code path parameter: exactly 5 alphanumeric
// characters, else 400 (service.md §2.3, §7). The spec names no case, so
// either is taken; the world is looked up by the upper-case UN/LOCODE.
func portCode(s string) (string, bool) {
	if len(s) != 5 {
		return "", false
	}
	var code [5]byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
			code[i] = c
		case 'a' <= c && c <= 'z':
			code[i] = c - 'a' + 'A'
		default:
			return "", false
		}
	}
	return string(code[:]), true
}

// imoNumber checks an IMO number path parameter: 7 digits with a valid
// check digit, else 400 (schedules.md, "By vessel"). The Vessel object
// types imo as an integer (service.md §2.4), so the 7 digits are those of a
// 7-digit integer: no sign, no leading zero.
func imoNumber(s string) (int, bool) {
	if len(s) != 7 || s[0] == '0' {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	if imoCheckDigit(n/10) != n%10 {
		return 0, false
	}
	return n, true
}

// imoCheckDigit is the check digit of the IMO ship identification scheme
// for the first six digits body: each digit weighted 7, 6, 5, 4, 3, 2 from
// the left, the last digit of the sum (the IMO ship identification number scheme).
func imoCheckDigit(body int) int {
	sum := 0
	for _, w := range []int{2, 3, 4, 5, 6, 7} {
		sum += body % 10 * w
		body /= 10
	}
	return sum % 10
}

// scacMinLen and scacMaxLen bound a Standard Carrier Alpha Code: 2 to 4 capital letters
// (NMFTA), the "sealine" of the tracking query.
const (
	scacMinLen = 2
	scacMaxLen = 4
)

// shipmentQuery checks the tracking query (schedules.md, "Shipment"):
// shipmentNumber is required; shipmentType is CT, BL or BK, CT when absent;
// sealine, when given, is a SCAC. The number's shape is not the service's
// concern: a number it does not know is a 404, not a 400.
func shipmentQuery(q url.Values) (wire.ShipmentRef, *apiFault) {
	ref := wire.ShipmentRef{
		Number:  q.Get("shipmentNumber"),
		Type:    wire.ShipmentType(q.Get("shipmentType")),
		Sealine: q.Get("sealine"),
	}
	if ref.Number == "" {
		return wire.ShipmentRef{}, badRequest("shipmentNumber", "", "is required")
	}
	switch ref.Type {
	case "":
		ref.Type = wire.ShipmentContainer
	case wire.ShipmentContainer, wire.ShipmentBillOfLading, wire.ShipmentBookingNumber:
	default:
		return wire.ShipmentRef{}, badRequest("shipmentType", string(ref.Type), "must be CT (container), BL (bill of lading) or BK (booking)")
	}
	if ref.Sealine != "" && !isSCAC(ref.Sealine) {
		return wire.ShipmentRef{}, badRequest("sealine", ref.Sealine, "must be a SCAC: 2 to 4 capital letters")
	}
	return ref, nil
}

func isSCAC(s string) bool {
	if len(s) < scacMinLen || len(s) > scacMaxLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 'A' || s[i] > 'Z' {
			return false
		}
	}
	return true
}

// iso6346Letters are the values of the owner code and category letters in
// the ISO 6346 check digit: A=10 upwards, skipping the multiples of 11.
var iso6346Letters = [26]int{
	10, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 23, 24, // A–M
	25, 26, 27, 28, 29, 30, 31, 32, 34, 35, 36, 37, 38, // N–Z
}

// containerCheckDigit is the ISO 6346 check digit of a container number's
// first 10 characters (4 capital letters, 6 digits): each character's value
// weighted 2^position, the sum modulo 11, a remainder of 10 written 0. It
// returns -1 for another shape. The simulator only generates numbers; it
// does not refuse a query for a bad check digit (that is a 404).
func containerCheckDigit(body string) int {
	if len(body) != 10 {
		return -1
	}
	sum := 0
	for i := 0; i < len(body); i++ {
		c := body[i]
		var v int
		switch {
		case i < 4 && 'A' <= c && c <= 'Z':
			v = iso6346Letters[c-'A']
		case i >= 4 && '0' <= c && c <= '9':
			v = int(c - '0')
		default:
			return -1
		}
		sum += v << i
	}
	return sum % 11 % 10
}
