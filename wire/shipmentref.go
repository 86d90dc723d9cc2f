package wire

// ShipmentType is how a shipment is identified to the tracking product
// (the shipmentType parameter of the tracking query).
type ShipmentType string

// The shipment types of the tracking API.
const (
	ShipmentContainer     ShipmentType = "CT"
	ShipmentBillOfLading  ShipmentType = "BL"
	ShipmentBookingNumber ShipmentType = "BK"
)

// ShipmentRef identifies a shipment to track: the tracking query's
// shipmentNumber, shipmentType and sealine.
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

// ValidContainerNumber checks an ISO 6346 container number: owner code and
// category (4 upper-case letters), serial (6 digits), check digit.
func ValidContainerNumber(s string) bool {
	return len(s) == 11 && ContainerCheckDigit(s[:10]) == int(s[10]-'0')
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
