package cli

import (
	stdhtml "html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/load"
)

// reportWarehouse creates a warehouse in a temp dir holding, when full,
// one arrived shipment with a carrier ETA and one port call.
func reportWarehouse(t *testing.T, full bool) string {
	t.Helper()
	dir := t.TempDir()
	wh, err := load.Open(t.Context(), dir, load.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer wh.Close()
	if !full {
		return dir
	}
	arrival := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`INSERT INTO shipments (shipment_number, shipment_type, sealine, pod_locode, container_count, first_observed_at, last_observed_at, response_id, first_observed_date)
			VALUES ('MAEU1', 'BL', 'MAEU', 'NLRTM', 1, ?, ?, 'r', DATE '2026-02-01')`, []any{arrival, arrival}},
		{`INSERT INTO eta_observations (shipment_number, shipment_type, target, source, observed_at, eta, is_actual, response_id, observed_date)
			VALUES ('MAEU1', 'BL', 'POD', 'CARRIER', ?, ?, false, 'r', DATE '2026-02-20'),
			       ('MAEU1', 'BL', 'POD', 'CARRIER', ?, ?, true, 'r', DATE '2026-03-01')`,
			[]any{arrival.AddDate(0, 0, -10), arrival.Add(-5 * time.Hour), arrival.Add(time.Hour), arrival}},
		{`INSERT INTO port_calls (query, port_locode, vessel_imo, voyage, event_type_code, classifier, observed_at, carrier, event_at, response_id, observed_date)
			VALUES ('PORT', 'NLRTM', 9000001, '1E', 'ARRI', 'PLN', ?, 'MAEU', ?, 'r', DATE '2026-02-20'),
			       ('PORT', 'NLRTM', 9000001, '1E', 'ARRI', 'ACT', ?, 'MAEU', ?, 'r', DATE '2026-03-01')`,
			[]any{arrival.AddDate(0, 0, -10), arrival, arrival.Add(time.Hour), arrival.Add(3 * time.Hour)}},
	} {
		if _, err := wh.DB().ExecContext(t.Context(), q.sql, q.args...); err != nil {
			t.Fatal(err)
		}
	}
	// Rows written with SQL record no partition for the mirror, which
	// readers read.
	if err := wh.RewriteMirror(t.Context()); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestCLIReport(t *testing.T) {
	slowtest.Long(t)
	full := reportWarehouse(t, true)
	t.Run("prints the tables and writes the page", func(t *testing.T) {
		html := filepath.Join(t.TempDir(), "report.html")
		code, out, errs := run(t, nil, "report", "--warehouse", full, "--html", html)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		for _, want := range []string{"1. Carrier ranking", "2. Error by horizon", "3. Predictive ETA", "4. Schedule reliability",
			"MAEU", "report: wrote " + html} {
			if !strings.Contains(out, want) {
				t.Errorf("output lacks %q:\n%s", want, out)
			}
		}
		b, err := os.ReadFile(html)
		if err != nil || !strings.HasPrefix(string(b), "<!DOCTYPE html>") {
			t.Fatalf("the page: %v, %.40q", err, b)
		}
		// The page says when it was made and by which etalake, the
		// version --version prints.
		made := regexp.MustCompile(`<p class="made">made \d{4}-\d\d-\d\d \d\d:\d\d UTC by etalake (.*?)</p>`).FindSubmatch(b)
		if made == nil || stdhtml.UnescapeString(string(made[1])) != releaseVersion() {
			t.Errorf("the page's made line %q, want one naming etalake %s", made, releaseVersion())
		}
		if fi, _ := os.Stat(html); fi.Mode().Perm() != 0o644 {
			t.Errorf("page mode %v, want 0644", fi.Mode().Perm())
		}
		left, _ := filepath.Glob(filepath.Join(filepath.Dir(html), ".*.tmp"))
		if len(left) > 0 {
			t.Errorf("temp files left: %v", left)
		}
	})
	for _, tc := range []struct {
		name string
		args []string
		code int
		says string
	}{
		{"no warehouse", []string{"report", "--warehouse", filepath.Join(t.TempDir(), "none")}, exitUsage, "no warehouse"},
		{"an argument", []string{"report", "--warehouse", full, "MAEU"}, exitUsage, "takes no argument"},
		{"no directory for the page", []string{"report", "--warehouse", full, "--html", filepath.Join(t.TempDir(), "no", "r.html")}, exitUsage, "no directory"},
		{"nothing to report", []string{"report", "--warehouse", reportWarehouse(t, false)}, exitFailure, "nothing to report yet: no tracked shipment has arrived"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errs := run(t, nil, tc.args...)
			if code != tc.code || !strings.Contains(errs, tc.says) {
				t.Errorf("exit %d, %q; want exit %d saying %q", code, errs, tc.code, tc.says)
			}
		})
	}
}

func TestDemoReportPath(t *testing.T) {
	for dir, want := range map[string]string{
		"./etalake-demo":   "./etalake-demo-report.html",
		"etalake-demo":     "./etalake-demo-report.html",
		"/tmp/demo-r/":     "/tmp/demo-r-report.html",
		"../elsewhere/web": "../elsewhere/web-report.html",
	} {
		if got := demoReportPath(dir); got != want {
			t.Errorf("demoReportPath(%q) = %q, want %q", dir, got, want)
		}
	}
}
