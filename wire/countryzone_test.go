package wire

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/etalake/etalake/internal/slowtest"
)

// Every zone of the table is one Go's zone database knows (a body reads
// the same on every host), and the countries the rule names have the
// zones it says.
func TestCountryZones(t *testing.T) {
	for country, zone := range countryZones {
		if _, err := time.LoadLocation(zone); err != nil {
			t.Errorf("%s: %s: %v", country, zone, err)
		}
	}
	for locode, want := range map[string]string{
		"NLRTM": "Europe/Amsterdam", "nlams": "Europe/Amsterdam", "SGSIN": "Asia/Singapore", "CNSHA": "Asia/Shanghai",
		"DEHAM": "Europe/Berlin", "VNSGN": "Asia/Ho_Chi_Minh", "MYPKG": "Asia/Kuala_Lumpur", "BEANR": "Europe/Brussels",
		"USLAX": "", "CAVAN": "", "BRSSZ": "", "RULED": "", "AUMEL": "", "MXZLO": "", "IDJKT": "", "ESVLC": "", "PTSIE": "",
		"": "", "X": "", "ZZABC": "",
	} {
		if got := countryZone(locode); got != want {
			t.Errorf("countryZone(%q) = %q, want %q", locode, got, want)
		}
	}
}

// countryzones_gen.go is what its go:generate line writes from this
// host's tz database, when it is the version the file was generated from.
func TestCountryZonesAreGenerated(t *testing.T) {
	slowtest.Long(t)
	if testing.Short() {
		t.Skip("runs the generator")
	}
	src, err := os.ReadFile("countryzones_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	zi, err := os.ReadFile("/usr/share/zoneinfo/tzdata.zi")
	if err != nil {
		t.Skip("no tz database on this host")
	}
	version, _, _ := strings.Cut(string(zi), "\n")
	if !strings.Contains(string(src), strings.TrimPrefix(version, "# ")+";") {
		t.Skipf("this host's tz database is %s, not the one countryzones_gen.go was generated from", version)
	}
	gen, err := os.ReadFile("countryzone.go")
	if err != nil {
		t.Fatal(err)
	}
	_, line, ok := strings.Cut(string(gen), "//go:generate ")
	line, _, _ = strings.Cut(line, "\n")
	args := strings.Fields(line)
	if !ok || len(args) < 3 || args[0] != "go" {
		t.Fatalf("no go:generate line in countryzone.go")
	}
	out := filepath.Join(t.TempDir(), "zones.go")
	for i, a := range args {
		if a == "-out" && i+1 < len(args) {
			args[i+1] = out
		}
	}
	if _, err := exec.LookPath(args[0]); err != nil {
		t.Skipf("no %s to run the generator: %v", args[0], err)
	}
	cmd := exec.Command(args[0], args[1:]...)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", line, err, msg)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, src) {
		t.Errorf("countryzones_gen.go differs from what %q writes: run go generate ./wire", line)
	}
}
