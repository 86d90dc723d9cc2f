package jobs_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/etalake/etalake/jobs"
	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/load/loadtest"
)

// RFC 8259 §8.1: "implementations that parse JSON texts MAY ignore the
// presence of a byte order mark rather than treating it as an error". A
// file saved with one (a .json, an .ndjson whose every line has one, as
// files put together do) is imported as without it.
func TestImportIgnoresAByteOrderMark(t *testing.T) {
	body, err := os.ReadFile("../testdata/transform/dcsa_port_schedules/body.json")
	if err != nil {
		t.Fatal(err)
	}
	bom := "\xef\xbb\xbf"
	dir := t.TempDir()
	one := filepath.Join(dir, "port-schedules-NLAMS.json")
	lines := filepath.Join(dir, "saved.ndjson")
	if err := os.WriteFile(one, append([]byte(bom), body...), 0o644); err != nil {
		t.Fatal(err)
	}
	period := `{"creditsInitial":1000,"credits":900,"periodStart":"2025-01-01T00:00:00Z","periodEnd":"2025-02-01T00:00:00Z","expired":false}`
	if err := os.WriteFile(lines, []byte(bom+period+"\n"+bom+`[`+period+`]`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	wh, err := load.Open(ctx, loadtest.Fresh(t, nil), load.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer wh.Close()
	st, err := jobs.Import(ctx, wh, []string{one, lines}, jobs.ImportOptions{ObservedAt: time.Date(2025, 1, 13, 6, 0, 0, 0, time.UTC)})
	if st.Unidentified != 0 || st.Bodies != 3 || st.Landed != 3 {
		t.Fatalf("import: %+v, %v: want the 3 bodies identified and landed", st, err)
	}
	var calls int
	if err := wh.DB().QueryRow(`SELECT count(*) FROM port_calls WHERE port_locode = 'NLAMS'`).Scan(&calls); err != nil || calls == 0 {
		t.Errorf("port_calls: %d, %v: want the file's calls loaded", calls, err)
	}
	var bodies int
	if err := wh.DB().QueryRow(`SELECT count(*) FROM raw_responses WHERE substr(hex(body), 1, 6) = 'EFBBBF'`).Scan(&bodies); err != nil || bodies != 0 {
		t.Errorf("%d bodies landed with the mark, %v: want none", bodies, err)
	}
}
