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

// ParseShipmentRef validates and normalises a shipment reference. The type
// defaults to CT. A container number must have the shape of ISO 6346 (4
// letters, 7 digits; a failing check digit is only a warning, see
// CheckDigitWarning); bill of lading and booking numbers are 3 to 35
// letters, digits or dashes; the sealine, when given, is a 2 to 4 letter
// SCAC.
func ParseShipmentRef(number, typ, sealine string) (wire.ShipmentRef, error) {
	ref := wire.ShipmentRef{
		Number:  strings.ToUpper(strings.TrimSpace(number)),
		Type:    wire.ShipmentType(strings.ToUpper(strings.TrimSpace(typ))),
		Sealine: strings.ToUpper(strings.TrimSpace(sealine)),
	}
	if ref.Type == "" {
		ref.Type = wire.ShipmentContainer
	}
	switch ref.Type {
	case wire.ShipmentContainer:
		// The shape, not the check digit: a number whose digit fails may
		// still be the carrier's (a typo on their side, a leased box), and
		// the service may know it. CheckDigitWarning says so.
		if !containerShape(ref.Number) {
			return wire.ShipmentRef{}, &InputError{Field: "container number", Value: number, Want: "ISO 6346: 4 letters and 7 digits (e.g. MSCU1234566)"}
		}
	case wire.ShipmentBillOfLading, wire.ShipmentBookingNumber:
		if len(ref.Number) < 3 || len(ref.Number) > 35 || !isAlnumDash(ref.Number) {
			return wire.ShipmentRef{}, &InputError{Field: "shipment number", Value: number, Want: "3 to 35 letters, digits or dashes"}
		}
	default:
		return wire.ShipmentRef{}, &InputError{Field: "shipment type", Value: typ, Want: "CT (container), BL (bill of lading) or BK (booking)"}
	}
	if ref.Sealine != "" && (len(ref.Sealine) < 2 || len(ref.Sealine) > 4 || !isUpperAlpha(ref.Sealine)) {
		return wire.ShipmentRef{}, &InputError{Field: "sealine", Value: sealine, Want: "a SCAC of 2 to 4 letters (e.g. MAEU) or nothing"}
	}
	return ref, nil
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
func CheckDigitWarning(ref wire.ShipmentRef) string {
	if ref.Type != wire.ShipmentContainer || !containerShape(ref.Number) || wire.ValidContainerNumber(ref.Number) {
		return ""
	}
	return fmt.Sprintf("container number %s: its ISO 6346 check digit should be %d, not %c; asked anyway, the service may know it",
		ref.Number, wire.ContainerCheckDigit(ref.Number[:10]), ref.Number[10])
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
