package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/etalake/etalake/extract"
	"github.com/etalake/etalake/wire"
)

func TestParseSelectionFlags(t *testing.T) {
	ports, bad, err := parsePorts("nlrtm, DEHAM,NLRTM")
	if err != nil || len(bad) != 0 || strings.Join(ports, ",") != "NLRTM,DEHAM" {
		t.Fatalf("ports = %v, %v, %v", ports, bad, err)
	}
	lanes, _, err := parseLanes("CNSHA-NLRTM,cnsha-uslax")
	if err != nil || len(lanes) != 2 || lanes[1].String() != "CNSHA-USLAX" {
		t.Fatalf("lanes = %v, %v", lanes, err)
	}
	vessels, _, err := parseVessels("9321483,IMO 9074729", wire.ScheduleAPIService)
	if err != nil || len(vessels) != 2 || vessels[1] != 9074729 {
		t.Fatalf("vessels = %v, %v", vessels, err)
	}
	for _, b := range []struct {
		bad     badRows
		mention string
	}{
		{second(parsePorts("NLRTM,NLRT")), "--ports: "},
		{second(parseLanes("CNSHA")), "POL-POD"},
		{second(parseLanes("CNSHA-CNSHA")), "two different ports"},
		{second(parseLanes("CNSHA-NL")), "port code"},
		{second(parseVessels("9074728", wire.ScheduleAPIService)), "check digit"},
	} {
		if len(b.bad) != 1 || !strings.Contains(b.bad[0].String(), b.mention) {
			t.Errorf("bad rows %v, want one mentioning %q", b.bad, b.mention)
		}
	}
	if _, _, err := parsePorts("@/nonexistent/ports.txt"); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("a missing list file: %v, want an error naming it", err)
	}
}

func second[T any](_ T, bad badRows, _ error) badRows { return bad }

// Every bad line of a list file is reported with its file and line, and
// the good ones are kept.
func TestEveryBadLineOfAListFileIsReportedAndTheRestKept(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "ports.csv")
	if err := os.WriteFile(f, []byte("locode,name\n# hubs\nNLRTM,Rotterdam\n\nDEHAM,Hamburg\nBAD,x\nNLRT,y\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ports, bad, err := parsePorts("@" + f)
	if err != nil || strings.Join(ports, ",") != "NLRTM,DEHAM" {
		t.Fatalf("ports = %v, %v: want the two good ones", ports, err)
	}
	if len(bad) != 2 || !strings.HasPrefix(bad[0].String(), f+":6: ") || !strings.HasPrefix(bad[1].String(), f+":7: ") {
		t.Fatalf("bad rows %v, want lines 6 and 7", bad)
	}
}

func TestReadShipmentsCSV(t *testing.T) {
	in := "sealine,shipment_number,shipment_type,note\nMSCU,mscu1234566,,first\n,MAEU123456789,BL,\nMSCU,MSCU1234566,CT,dup\n"
	refs, bad, err := readShipments(strings.NewReader(in), "s.csv")
	if err != nil || len(bad) != 0 {
		t.Fatal(err, bad)
	}
	want := []wire.ShipmentRef{{Number: "MSCU1234566", Type: "CT", Sealine: "MSCU"}, {Number: "MAEU123456789", Type: "BL"}}
	if len(refs) != 2 || refs[0] != want[0] || refs[1] != want[1] {
		t.Fatalf("refs = %+v", refs)
	}
	for in, mention := range map[string]string{
		"":               "empty file",
		"number\nX\n":    "no shipment_number column",
		"\"a,b\n\"c,d\n": "s.csv",
	} {
		if _, _, err := readShipments(strings.NewReader(in), "s.csv"); err == nil || !strings.Contains(err.Error(), mention) {
			t.Errorf("%q: err = %v, want mention of %q", in, err, mention)
		}
	}
}

// One malformed row among good ones costs only itself: every bad row is
// reported by file and line — a quote left open included, which must not
// swallow the lines after it — and the good ones (a container number whose
// check digit fails among them: the service may know it) are kept.
func TestBadShipmentRowsAreEachReportedAndSkipped(t *testing.T) {
	in := "shipment_number,shipment_type,sealine\n" +
		"MSCU1234566,CT,MSCU\n" + // 2 good
		"MAEU1,XX,\n" + // 3 bad type
		",CT,\n" + // 4 no number
		"TEMU1234567,CT,\n" + // 5 check digit fails: kept, warned
		"MAEU123456789,BL,MAERSK\n" + // 6 bad SCAC
		"\"broken,CT\n" + // 7 a quote never closed: read alone, it does not swallow the rest
		"MAEU123456790,BL,MAEU\n" + // 8 good
		"MAEU12\"3,BL,\n" + // 9 a quote inside a field
		"\n# a comment\n" + // 10, 11
		"MAEU123456791,BL,MAEU\n" // 12 good
	refs, bad, err := readShipments(strings.NewReader(in), "s.csv")
	if err != nil {
		t.Fatal(err)
	}
	var numbers []string
	for _, r := range refs {
		numbers = append(numbers, r.Number)
	}
	if got := strings.Join(numbers, " "); got != "MSCU1234566 TEMU1234567 MAEU123456790 MAEU123456791" {
		t.Fatalf("read %s, want MSCU1234566 TEMU1234567 MAEU123456790 MAEU123456791: the rows after a broken quote were lost", got)
	}
	got := strings.Join(bad.Strings(), "\n")
	for _, want := range []string{"s.csv:3: ", "s.csv:4: no shipment_number", "s.csv:6: ", "s.csv:7: a quote is not closed on its line", "s.csv:9: "} {
		if !strings.Contains(got, want) {
			t.Errorf("bad rows lack %q:\n%s", want, got)
		}
	}
	if len(bad) != 5 {
		t.Errorf("%d bad rows, want 5:\n%s", len(bad), got)
	}
	if w := extract.CheckDigitWarning(refs[1]); w == "" {
		t.Error("no warning for TEMU1234567")
	}
}

// DCSA's vesselIMONumber is "^\d{7,8}$": an 8-digit number (an inland
// vessel's ENI) is asked of a DCSA provider; the service profile's
// by-vessel path takes a 7-digit IMO number with its check digit, so an
// 8-digit one is a bad row there, saying which profile takes it.
func TestEightDigitVesselNumbersAreForDCSAProviders(t *testing.T) {
	got, bad, err := parseVessels("IMO9321483,23162713", wire.ScheduleAPIDCSA)
	if err != nil || len(bad) != 0 || len(got) != 2 || got[1] != 23162713 {
		t.Fatalf("DCSA: %v, %v, %v: want both", got, bad, err)
	}
	got, bad, err = parseVessels("9321483,23162713", wire.ScheduleAPIService)
	if err != nil || len(got) != 1 || len(bad) != 1 || !strings.Contains(bad[0].reason, "--schedule-api dcsa-cs-1.0") {
		t.Fatalf("service: %v, %v, %v: want the 8-digit number a bad row naming the DCSA profile", got, bad, err)
	}
}
