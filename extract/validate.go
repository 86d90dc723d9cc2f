package extract

import (
	"github.com/etalake/etalake/wire"

	"fmt"
	"strconv"
	"strings"
)

// ParsePortCode normalises a UN/LOCODE port code: surrounding spaces are
// dropped and letters upper-cased; what remains must be exactly 5 ASCII
// letters or digits (service.md §2.3). Checked before any request, so a bad
// code never costs a rate-limit slot.
func ParsePortCode(s string) (string, error) {
	code := strings.ToUpper(strings.TrimSpace(s))
	if len(code) != 5 || !isAlnum(code) {
		return "", &InputError{Field: "port code", Value: s, Want: "exactly 5 letters or digits (a UN/LOCODE such as NLRTM)"}
	}
	return code, nil
}

// ParseIMO parses an IMO ship identification number: 7 digits whose last is
// the check digit, optionally written "IMO 9321483".
func ParseIMO(s string) (int, error) {
	return ParseVessel(s, wire.ScheduleAPIService)
}

// ParseVessel reads a vessel's number for the by-vessel query of a
// schedule profile: an IMO number of 7 digits with a valid check digit,
// with or without an IMO prefix; in the dcsa-cs-1.0 profile also a number
// of 8 digits, as the standard's vesselIMONumber allows ("^\d{7,8}$": an
// inland vessel's ENI number is 8), which has no check digit to verify.
func ParseVessel(s string, api wire.ScheduleAPI) (int, error) {
	t := strings.TrimSpace(s)
	if len(t) >= 3 && strings.EqualFold(t[:3], "IMO") {
		t = strings.TrimSpace(t[3:])
	}
	n, err := strconv.Atoi(t)
	if err == nil && (len(t) == 7 || len(t) == 8) && ValidVessel(n, api) {
		return n, nil
	}
	want := "7 digits with a valid check digit (e.g. 9321483)"
	if api == wire.ScheduleAPIDCSA {
		want += ", or 8 digits"
	} else if err == nil && len(t) == 8 {
		want += "; 8 digits only with --schedule-api " + string(wire.ScheduleAPIDCSA) + ", whose vesselIMONumber takes them"
	}
	return 0, &InputError{Field: "IMO number", Value: s, Want: want}
}

// ValidVessel reports whether n is a vessel number the by-vessel query of
// profile api takes: a 7-digit IMO number with a valid check digit, or, in
// the dcsa-cs-1.0 profile, any 8-digit number.
func ValidVessel(n int, api wire.ScheduleAPI) bool {
	if api == wire.ScheduleAPIDCSA && n >= 10000000 && n <= 99999999 {
		return true
	}
	return ValidIMO(n)
}

// ValidIMO reports whether n is a 7-digit IMO number with a valid check
// digit: the digits weighted 7,6,5,4,3,2 sum to a number whose last digit is
// the seventh.
func ValidIMO(n int) bool {
	if n < 1000000 || n > 9999999 {
		return false
	}
	check := n % 10
	sum := 0
	for w, rest := 2, n/10; w <= 7; w, rest = w+1, rest/10 {
		sum += (rest % 10) * w
	}
	return sum%10 == check
}

// ShipmentType is how a shipment is identified to the tracking product.
type ShipmentType string

// The shipment types of the tracking API.
const (
	ShipmentContainer     ShipmentType = "CT"
	ShipmentBillOfLading  ShipmentType = "BL"
	ShipmentBookingNumber ShipmentType = "BK"
)

// ShipmentRef identifies a shipment to track.
type ShipmentRef struct {
	Number  string
	Type    ShipmentType
	Sealine string // SCAC of the shipping line; empty lets the service detect it
}

// String renders the reference as NUMBER/TYPE[/SEALINE].
func (r ShipmentRef) String() string {
	s := r.Number + "/" + string(r.Type)
	if r.Sealine != "" {
		s += "/" + r.Sealine
	}
	return s
}

// ParseShipmentRef validates and normalises a shipment reference. The type
// defaults to CT. A container number must have the shape of ISO 6346 (4
// letters, 7 digits; a failing check digit is only a warning, see
// CheckDigitWarning); bill of lading and booking numbers are 3 to 35
// letters, digits or dashes; the sealine, when given, is a 2 to 4 letter
// SCAC.
func ParseShipmentRef(number, typ, sealine string) (ShipmentRef, error) {
	ref := ShipmentRef{
		Number:  strings.ToUpper(strings.TrimSpace(number)),
		Type:    ShipmentType(strings.ToUpper(strings.TrimSpace(typ))),
		Sealine: strings.ToUpper(strings.TrimSpace(sealine)),
	}
	if ref.Type == "" {
		ref.Type = ShipmentContainer
	}
	switch ref.Type {
	case ShipmentContainer:
		// The shape, not the check digit: a number whose digit fails may
		// still be the carrier's (a typo on their side, a leased box), and
		// the service may know it. CheckDigitWarning says so.
		if !containerShape(ref.Number) {
			return ShipmentRef{}, &InputError{Field: "container number", Value: number, Want: "ISO 6346: 4 letters and 7 digits (e.g. MSCU1234566)"}
		}
	case ShipmentBillOfLading, ShipmentBookingNumber:
		if len(ref.Number) < 3 || len(ref.Number) > 35 || !isAlnumDash(ref.Number) {
			return ShipmentRef{}, &InputError{Field: "shipment number", Value: number, Want: "3 to 35 letters, digits or dashes"}
		}
	default:
		return ShipmentRef{}, &InputError{Field: "shipment type", Value: typ, Want: "CT (container), BL (bill of lading) or BK (booking)"}
	}
	if ref.Sealine != "" && (len(ref.Sealine) < 2 || len(ref.Sealine) > 4 || !isUpperAlpha(ref.Sealine)) {
		return ShipmentRef{}, &InputError{Field: "sealine", Value: sealine, Want: "a SCAC of 2 to 4 letters (e.g. MAEU) or nothing"}
	}
	return ref, nil
}

// ValidContainerNumber checks an ISO 6346 container number: owner code and
// category (4 letters), serial (6 digits), check digit.
func ValidContainerNumber(s string) bool {
	return containerShape(s) && ContainerCheckDigit(s[:10]) == int(s[10]-'0')
}

// containerShape reports whether s has the shape of an ISO 6346 container
// number: 4 upper-case letters and 7 digits.
func containerShape(s string) bool {
	if len(s) != 11 || !isUpperAlpha(s[:4]) {
		return false
	}
	for i := 4; i < 11; i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// CheckDigitWarning is, for a container reference whose ISO 6346 check
// digit fails, what to warn of; "" otherwise. Such a number is still
// tracked and asked: the service may know it.
func CheckDigitWarning(ref ShipmentRef) string {
	if ref.Type != ShipmentContainer || !containerShape(ref.Number) || ValidContainerNumber(ref.Number) {
		return ""
	}
	return fmt.Sprintf("container number %s: its ISO 6346 check digit should be %d, not %c; asked anyway, the service may know it",
		ref.Number, ContainerCheckDigit(ref.Number[:10]), ref.Number[10])
}

// ContainerCheckDigit computes the ISO 6346 check digit of the first 10
// characters of a container number (4 upper-case letters, 6 digits). It
// returns -1 when the input has another shape.
func ContainerCheckDigit(s string) int {
	if len(s) != 10 {
		return -1
	}
	sum := 0
	for i := 0; i < 10; i++ {
		c := s[i]
		var v int
		switch {
		case i < 4 && c >= 'A' && c <= 'Z':
			// A=10, skipping multiples of 11: B=12 … K=21, L=23 … U=32, V=34 … Z=38.
			v = int(c-'A') + 10
			v += (v - 1) / 10
		case i >= 4 && c >= '0' && c <= '9':
			v = int(c - '0')
		default:
			return -1
		}
		sum += v << i
	}
	return sum % 11 % 10
}

func isAlnum(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z') {
			return false
		}
	}
	return true
}

func isAlnumDash(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] != '-' && !isAlnum(s[i:i+1]) {
			return false
		}
	}
	return true
}

func isUpperAlpha(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 'A' || s[i] > 'Z' {
			return false
		}
	}
	return true
}
