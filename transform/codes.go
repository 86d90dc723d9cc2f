package transform

import "strings"

// Providers spell the same code in several ways (load, LOAD, " LOAD"), and
// a grouping or a view that filters 'ARRI' must see them as one. The
// warehouse keeps codes (event types, event codes, statuses, route and
// transport types, shipment types), UN/LOCODEs and SCACs trimmed and in
// upper case, and container numbers without the separators people write
// in them.

// upperCode is a code as the warehouse keeps it: trimmed, upper case.
func upperCode(s string) string {
	if len(s) == 0 || s[0] > ' ' && s[len(s)-1] > ' ' {
		clean := true
		for i := 0; i < len(s); i++ {
			if c := s[i]; c >= 'a' && c <= 'z' || c >= 0x80 {
				clean = false
				break
			}
		}
		if clean {
			return s
		}
	}
	return strings.ToUpper(strings.TrimSpace(s))
}

// containerNumber is a container number as the warehouse keeps it: when,
// without its separators (white space, -, /, ., _) and in upper case, it is
// 4 letters and 7 digits (ISO 6346: EMCU-8593893, EMCU 859389 3 and
// emcu8593893 are EMCU8593893), that; else as sent, trimmed and upper
// case. The check digit is not checked: the number names the box the
// service means either way.
func containerNumber(s string) string {
	if isContainerNumber(s) {
		return s
	}
	var b [11]byte
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '-' || c == '/' || c == '.' || c == '_':
			continue
		case n == len(b):
			return upperCode(s)
		case c >= 'a' && c <= 'z':
			c -= 'a' - 'A'
		}
		b[n] = c
		n++
	}
	if n == len(b) && isContainerNumber(string(b[:])) {
		return string(b[:])
	}
	return upperCode(s)
}

// isContainerNumber reports whether s is 4 upper-case letters and 7 digits.
func isContainerNumber(s string) bool {
	if len(s) != 11 {
		return false
	}
	for i := 0; i < 11; i++ {
		c := s[i]
		if i < 4 && (c < 'A' || c > 'Z') || i >= 4 && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// shipmentNumber is a shipment number as the warehouse keeps it: a
// container number's form (containerNumber) for CT, else trimmed and upper
// case, as the client sends them (extract.ParseShipmentRef).
func shipmentNumber(number, typ string) string {
	if typ == "CT" {
		return containerNumber(number)
	}
	return upperCode(number)
}

// The event types.
const (
	typeEquipment = "EQUIPMENT"
	typeTransport = "TRANSPORT"
)

// statusEvent is the event code and type a status stands for: the
// correspondence of spec/schedules.md's journey table. ok is false for a
// status it does not name.
func statusEvent(status string) (code, typ string, ok bool) {
	switch status {
	case "CEP", "CGO":
		return "GTOT", typeEquipment, true
	case "CGI", "CER":
		return "GTIN", typeEquipment, true
	case "CLL", "CLT":
		return "LOAD", typeEquipment, true
	case "CDT", "CDD":
		return "DISC", typeEquipment, true
	case "VDL", "VDT":
		return "DEPA", typeTransport, true
	case "VAT", "VAD":
		return "ARRI", typeTransport, true
	}
	return "", "", false
}

// codeType is the event type of an event code of spec/schedules.md's
// table, "" for another code.
func codeType(code string) string {
	switch code {
	case "GTOT", "GTIN", "LOAD", "DISC":
		return typeEquipment
	case "DEPA", "ARRI":
		return typeTransport
	}
	return ""
}

// eventCodes are an event's type, code and status as the warehouse keeps
// them: upper case; a missing code is that of the status (statusEvent),
// a missing type that of the code (codeType).
func eventCodes(typ, code, status string) (string, string, string) {
	typ, code, status = upperCode(typ), upperCode(code), upperCode(status)
	if code == "" {
		if c, t, ok := statusEvent(status); ok {
			code = c
			if typ == "" {
				typ = t
			}
		}
	}
	if typ == "" {
		typ = codeType(code)
	}
	return typ, code, status
}
