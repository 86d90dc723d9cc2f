package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/etalake/etalake/extract"
)

func TestParseSelectionFlags(t *testing.T) {
	ports, err := parsePorts("nlrtm, DEHAM,NLRTM")
	if err != nil || strings.Join(ports, ",") != "NLRTM,DEHAM" {
		t.Fatalf("ports = %v, %v", ports, err)
	}
	lanes, err := parseLanes("CNSHA-NLRTM,cnsha-uslax")
	if err != nil || len(lanes) != 2 || lanes[1].String() != "CNSHA-USLAX" {
		t.Fatalf("lanes = %v, %v", lanes, err)
	}
	vessels, err := parseVessels("9321483,IMO 9074729")
	if err != nil || len(vessels) != 2 || vessels[1] != 9074729 {
		t.Fatalf("vessels = %v, %v", vessels, err)
	}
	bad := []struct {
		err     error
		mention string
	}{
		{second(parsePorts("NLRTM,NLRT")), "--ports"},
		{second(parseLanes("CNSHA")), "POL-POD"},
		{second(parseLanes("CNSHA-CNSHA")), "two different ports"},
		{second(parseLanes("CNSHA-NL")), "port code"},
		{second(parseVessels("9074728")), "check digit"},
		{second(parsePorts("@/nonexistent/ports.txt")), "no such file"},
	}
	for _, b := range bad {
		if b.err == nil || !strings.Contains(b.err.Error(), b.mention) {
			t.Errorf("err = %v, want mention of %q", b.err, b.mention)
		}
	}
}

func second[T any](_ T, err error) error { return err }

func TestListFromFileNamesTheLine(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "ports.csv")
	if err := os.WriteFile(f, []byte("locode,name\n# hubs\nNLRTM,Rotterdam\n\nDEHAM,Hamburg\nBAD,x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := parsePorts("@" + f)
	if err == nil || !strings.Contains(err.Error(), f+":6") {
		t.Fatalf("err = %v, want the file and line 6", err)
	}
	if err := os.WriteFile(f, []byte("locode,name\nNLRTM,Rotterdam\nDEHAM,Hamburg\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ports, err := parsePorts("@" + f)
	if err != nil || strings.Join(ports, ",") != "NLRTM,DEHAM" {
		t.Fatalf("ports = %v, %v", ports, err)
	}
}

func TestReadShipmentsCSV(t *testing.T) {
	in := "sealine,shipment_number,shipment_type,note\nMSCU,mscu1234566,,first\n,MAEU123456789,BL,\nMSCU,MSCU1234566,CT,dup\n"
	refs, err := readShipments(strings.NewReader(in), "s.csv")
	if err != nil {
		t.Fatal(err)
	}
	want := []extract.ShipmentRef{{Number: "MSCU1234566", Type: "CT", Sealine: "MSCU"}, {Number: "MAEU123456789", Type: "BL"}}
	if len(refs) != 2 || refs[0] != want[0] || refs[1] != want[1] {
		t.Fatalf("refs = %+v", refs)
	}
	for in, mention := range map[string]string{
		"":                               "empty file",
		"number\nX\n":                    "no shipment_number column",
		"shipment_number\nMSCU1234567\n": "s.csv:2",
		"shipment_number,shipment_type\nMAEU1,XX\n": "s.csv:2",
	} {
		if _, err := readShipments(strings.NewReader(in), "s.csv"); err == nil || !strings.Contains(err.Error(), mention) {
			t.Errorf("%q: err = %v, want mention of %q", in, err, mention)
		}
	}
}
