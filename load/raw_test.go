package load_test

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/response"
)

func fetched(observed time.Time, body string) response.Landed {
	date := observed
	logical := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)
	return response.Landed{
		Received: response.Received{Product: "schedule", Endpoint: "schedule_port", Request: "/schedule/api/v1/schedule/NLRTM",
			Status: 200, FetchedAt: observed.Add(time.Second), DateHeader: &date, Attempt: 1, Body: []byte(body)},
		RunID: "run-1", Resource: "port:NLRTM", ObservedAt: observed, Source: load.SourceFetch, LogicalDate: &logical,
	}
}

var t0 = time.Date(2024, 3, 1, 10, 0, 0, 0, time.UTC)

// ptr is a pointer to a copy of r.
func ptr(r response.Landed) *response.Landed { return &r }

// ptrs are pointers to copies of rs.
func ptrs(rs []response.Landed) []*response.Landed {
	out := make([]*response.Landed, len(rs))
	for i := range rs {
		out[i] = ptr(rs[i])
	}
	return out
}

func land(t testing.TB, w *load.Warehouse, rs ...response.Landed) int {
	t.Helper()
	n, err := w.Land(t.Context(), ptrs(rs)...)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// landDerived lands rs and records them derived (without rows), as a
// job does once it loaded their rows.
func landDerived(t testing.TB, w *load.Warehouse, rs ...response.Landed) {
	t.Helper()
	land(t, w, rs...)
	ids := make([]string, len(rs))
	for i := range rs {
		ids[i] = load.ResponseID(&rs[i])
	}
	if _, err := w.Load(t.Context(), nil, ids...); err != nil {
		t.Fatal(err)
	}
}

// all reads every landed response through Raw.
func all(t testing.TB, w *load.Warehouse, f load.RawFilter) ([]response.Landed, []string) {
	t.Helper()
	var rs []response.Landed
	var ids []string
	err := w.Raw(t.Context(), f, func(r *response.Landed) error {
		rs = append(rs, *r)
		ids = append(ids, r.ID)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return rs, ids
}

func TestLandIsIdempotent(t *testing.T) {
	w := freshWarehouse(t)
	r := fetched(t0, `{"a":1}`)
	if n := land(t, w, r); n != 1 {
		t.Errorf("first landing: %d new, want 1", n)
	}
	if n := land(t, w, r); n != 0 {
		t.Errorf("second landing: %d new, want 0", n)
	}
	// Another run, attempt, fetch time or source: the same response.
	again := r
	again.RunID, again.Attempt, again.FetchedAt, again.Source = "run-2", 3, t0.Add(time.Hour), load.SourceImport
	if load.ResponseID(&again) != load.ResponseID(&r) {
		t.Error("run, attempt, fetch time and source changed the response id")
	}
	if n := land(t, w, again, r); n != 0 {
		t.Errorf("landing again from another run: %d new, want 0", n)
	}
	if got := query(t, w.DB(), "SELECT run_id FROM raw_responses"); len(got) != 1 || got[0] != "run-1" {
		t.Errorf("run_id: %v, want the first run's", got)
	}
	// Observed at another time: another response.
	later := fetched(t0.Add(time.Minute), `{"a":1}`)
	if n := land(t, w, later); n != 1 {
		t.Errorf("different observed_at: %d new, want 1", n)
	}
	if n := queryInt(t, w.DB(), "SELECT count(*) FROM raw_responses"); n != 2 {
		t.Errorf("%d rows, want 2", n)
	}
	// Twice in one call.
	third := fetched(t0.Add(2*time.Minute), `{"a":1}`)
	if n := land(t, w, third, third); n != 1 {
		t.Errorf("twice in one call: %d new, want 1", n)
	}
	// Landed and new responses of one day in one call: only the new lands.
	fourth := fetched(t0.Add(3*time.Minute), `{"a":1}`)
	if n := land(t, w, r, fourth, later); n != 1 {
		t.Errorf("landed and new in one call: %d new, want 1", n)
	}
	if n := queryInt(t, w.DB(), "SELECT count(*) FROM raw_responses"); n != 4 {
		t.Errorf("%d rows, want 4", n)
	}
}

func TestRawRoundTripsBodies(t *testing.T) {
	w := freshWarehouse(t)
	binary := make([]byte, 4096)
	for i := range binary {
		binary[i] = byte(i * 7)
	}
	in := []response.Landed{
		fetched(t0, `{"schedules":[]}`),
		fetched(t0.Add(time.Second), ""),
		fetched(t0.Add(2*time.Second), string(binary)),
	}
	in[1].DateHeader, in[1].LogicalDate, in[1].Status = nil, nil, 404
	land(t, w, in...)
	out, ids := all(t, w, load.RawFilter{})
	if len(out) != len(in) {
		t.Fatalf("%d responses, want %d", len(out), len(in))
	}
	for i := range in {
		if !bytes.Equal(out[i].Body, in[i].Body) {
			t.Errorf("%d: body %q, want %q", i, shorten(out[i].Body), shorten(in[i].Body))
		}
		got, want := fmt.Sprintf("%+v", withoutBody(out[i])), fmt.Sprintf("%+v", withoutBody(in[i]))
		if got != want {
			t.Errorf("%d:\n got %s\nwant %s", i, got, want)
		}
		if load.ResponseID(&out[i]) != ids[i] {
			t.Errorf("%d: the id of the response read back is not its id", i)
		}
	}
}

// withoutBody renders the response's fields with pointers dereferenced.
func withoutBody(r response.Landed) string {
	deref := func(t *time.Time) string {
		if t == nil {
			return "nil"
		}
		return t.UTC().String()
	}
	return fmt.Sprint(r.RunID, r.Product, r.Endpoint, r.Request, r.Status, r.FetchedAt.UTC(), r.ObservedAt.UTC(),
		deref(r.DateHeader), r.Attempt, r.Source, deref(r.LogicalDate))
}

func shorten(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "…"
	}
	return string(b)
}

func TestBodiesAreStoredCompressed(t *testing.T) {
	w := freshWarehouse(t)
	body := strings.Repeat(`{"vessel":"MAERSK ESSEN","eta":"2024-03-01T10:00:00Z"},`, 2000)
	land(t, w, fetched(t0, body))
	var size, stored int64
	var sum string
	if err := w.DB().QueryRowContext(t.Context(), "SELECT body_bytes, octet_length(body), body_sha256 FROM raw_responses").Scan(&size, &stored, &sum); err != nil {
		t.Fatal(err)
	}
	if size != int64(len(body)) || stored >= size/10 {
		t.Errorf("body_bytes %d (want %d), stored %d bytes: want it compressed", size, len(body), stored)
	}
	if len(sum) != 64 {
		t.Errorf("body_sha256 %q", sum)
	}
}

// TestLandStoresOnlyTheGivenFields: the caller holds the API key in a
// request header; Land is given the response's fields, and nothing it
// writes (columns, database file, mirror) holds the key.
func TestLandStoresOnlyTheGivenFields(t *testing.T) {
	slowtest.Long(t)
	dir := t.TempDir()
	w := openWarehouse(t, dir)
	const key = "sk-test-5e3cb1f0a9d8"
	req, err := http.NewRequest("GET", "http://localhost/schedule/api/v1/schedule/NLRTM?carrier=MAEU", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Api-Key", key)
	r := fetched(t0, `{"ok":true}`)
	r.Request = req.URL.RequestURI()
	land(t, w, r)
	got := query(t, w.DB(), `SELECT concat_ws('|', response_id, run_id, product, endpoint, request, status, fetched_at,
		observed_at, date_header, attempt, source, logical_date, body_bytes, body_sha256, observed_date) FROM raw_responses`)
	want := strings.Join([]string{load.ResponseID(&r), "run-1", "schedule", "schedule_port", "/schedule/api/v1/schedule/NLRTM?carrier=MAEU",
		"200", "2024-03-01 10:00:01+00", "2024-03-01 10:00:00+00", "2024-03-01 10:00:00+00", "1", "fetch", "2024-03-01",
		"11", fmt.Sprintf("%x", sha256.Sum256(r.Body)), "2024-03-01"}, "|")
	equal(t, "raw_responses", got, []string{want})
	if strings.Contains(got[0], key) {
		t.Fatalf("raw_responses holds the key: %v", got)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	err = filepath.WalkDir(dir, func(path string, e os.DirEntry, err error) error {
		if err != nil || !e.Type().IsRegular() { // a version's files are also read through links
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if bytes.Contains(b, []byte(key)) {
			t.Errorf("%s holds the API key", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestRawFiltersAndPages(t *testing.T) {
	slowtest.Long(t)
	w := freshWarehouse(t)
	var rs []response.Landed
	for i := range 600 {
		// Observed out of order, with ties: Raw must sort.
		r := fetched(t0.Add(time.Duration((i*37)%300)*time.Second), fmt.Sprint(i))
		if i%3 == 0 {
			r.Status, r.Endpoint = 404, "shipment"
		}
		rs = append(rs, r)
	}
	if n := land(t, w, rs...); n != 600 {
		t.Fatalf("%d landed", n)
	}
	out, ids := all(t, w, load.RawFilter{})
	if len(out) != 600 {
		t.Fatalf("%d responses, want 600", len(out))
	}
	for i := 1; i < len(out); i++ {
		a, b := out[i-1].ObservedAt, out[i].ObservedAt
		if a.After(b) || (a.Equal(b) && ids[i-1] >= ids[i]) {
			t.Fatalf("%d: %v %s before %v %s", i, a, ids[i-1], b, ids[i])
		}
	}
	out, _ = all(t, w, load.RawFilter{Statuses: []int{404}, Endpoints: []string{"shipment"}})
	if len(out) != 200 {
		t.Errorf("404 shipment: %d, want 200", len(out))
	}
	ranged := load.RawFilter{Since: t0.Add(100 * time.Second), Until: t0.Add(200 * time.Second), Products: []string{"schedule"}}
	out, rangedIDs := all(t, w, ranged)
	if len(out) != 200 {
		t.Errorf("range: %d, want 200", len(out))
	}
	if got, err := w.RawIDs(t.Context(), ranged); err != nil || strings.Join(got, " ") != strings.Join(rangedIDs, " ") {
		t.Errorf("RawIDs of the range: %d ids, %v; want Raw's %d, in its order", len(got), err, len(rangedIDs))
	}
	for _, r := range out {
		if r.ObservedAt.Before(t0.Add(100*time.Second)) || !r.ObservedAt.Before(t0.Add(200*time.Second)) {
			t.Errorf("%v outside the range", r.ObservedAt)
		}
	}
	// fn may write to the warehouse, and its error stops the iteration.
	stop := errors.New("stop")
	n := 0
	err := w.Raw(t.Context(), load.RawFilter{}, func(r *response.Landed) error {
		if _, err := w.Land(t.Context(), r); err != nil {
			return err
		}
		if n++; n == 30 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || n != 30 {
		t.Errorf("Raw: %v after %d", err, n)
	}
}

func TestLandRefusesIncompleteResponses(t *testing.T) {
	w := freshWarehouse(t)
	for name, edit := range map[string]func(*response.Landed){
		"no run":      func(r *response.Landed) { r.RunID = "" },
		"no observed": func(r *response.Landed) { r.ObservedAt = time.Time{} },
		"bad source":  func(r *response.Landed) { r.Source = "guess" },
	} {
		r := fetched(t0, "{}")
		edit(&r)
		if _, err := w.Land(t.Context(), &r); !errors.Is(err, load.ErrInvalid) {
			t.Errorf("%s: %v, want ErrInvalid", name, err)
		}
	}
}

// A response landed but never loaded (a crash in between) is found by
// Underived; once Load records it as derived, it is not.
func TestUnderivedFindsWhatACrashLeftBehind(t *testing.T) {
	w := freshWarehouse(t)
	ctx := t.Context()
	a, b := fetched(t0, `{"a":1}`), fetched(t0.Add(time.Hour), `{"b":2}`)
	land(t, w, a, b)
	underived := func() []string {
		var ids []string
		if err := w.Raw(ctx, load.RawFilter{Underived: true}, func(r *response.Landed) error {
			ids = append(ids, r.ID)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return ids
	}
	if got := underived(); len(got) != 2 {
		t.Fatalf("underived = %v, want both", got)
	}
	if _, err := w.Load(ctx, nil, load.ResponseID(&a)); err != nil {
		t.Fatal(err)
	}
	if got := underived(); len(got) != 1 || got[0] != load.ResponseID(&b) {
		t.Fatalf("underived = %v, want only the second", got)
	}
	if _, err := w.Load(ctx, nil, load.ResponseID(&a)); err != nil {
		t.Fatal(err)
	}
	if err := w.ForgetDerived(ctx); err != nil {
		t.Fatal(err)
	}
	if got := underived(); len(got) != 2 {
		t.Fatalf("after ForgetDerived: %v, want both", got)
	}
}
