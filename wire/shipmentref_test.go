package wire_test

import (
	"testing"

	"github.com/etalake/etalake/wire"
)

func TestContainerNumbers(t *testing.T) {
	// CSQU3054383 is the example of ISO 6346 itself.
	for _, s := range []string{"CSQU3054383", "MSCU1234566"} {
		if !wire.ValidContainerNumber(s) {
			t.Errorf("ValidContainerNumber(%q) = false", s)
		}
	}
	for _, s := range []string{"CSQU3054384", "CSQU305438", "csqu3054383", "CSQ13054383", "CSQU30543831"} {
		if wire.ValidContainerNumber(s) {
			t.Errorf("ValidContainerNumber(%q) = true", s)
		}
	}
}
