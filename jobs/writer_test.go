package jobs

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/response"
)

// A response handed to the writer is on disk when land returns, whatever
// the writer is doing: here it is busy and lands nothing (its goroutine
// never runs), the process "dies", and the next Open lands the response.
func TestLandedResponseIsOnDiskWhileTheWriterIsBusy(t *testing.T) {
	slowtest.Long(t)
	ctx := context.Background()
	dir := t.TempDir()
	wh, err := load.Open(ctx, dir, load.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	j, err := wh.OpenJournal("run-busy")
	if err != nil {
		t.Fatal(err)
	}
	w := newWriter(newSink(wh, 0, time.Now, slog.New(slog.DiscardHandler)), j)
	at := time.Date(2026, 1, 5, 2, 0, 0, 0, time.UTC)
	day := dateOf(at)
	raw := &response.Landed{RunID: "run-busy", Resource: "shipment:MSCU1234566:CT:MSCU", ObservedAt: at, Source: load.SourceFetch, LogicalDate: &day,
		Received: response.Received{Product: "tracking", Endpoint: "shipment", Request: "/container-tracking/api/v2/shipments/MSCU1234566",
			Status: 200, FetchedAt: at, Attempt: 1, Body: []byte(`{"metadata":{}}`)}}
	if err := w.land(raw); err != nil {
		t.Fatal(err)
	}
	// Dies: the journal is left as the kernel has it, the warehouse closed
	// without the writer having landed anything.
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	if n := queryCount(t, wh, "SELECT count(*) FROM raw_responses"); n != 0 {
		t.Fatalf("the busy writer landed %d responses, want none", n)
	}
	if err := wh.Close(); err != nil {
		t.Fatal(err)
	}
	wh, err = load.Open(ctx, dir, load.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer wh.Close()
	if rec := wh.Recovered(); rec.Landed != 1 {
		t.Fatalf("the next Open recovered %+v, want the 1 response", rec)
	}
	answered, err := wh.Answered(ctx, day)
	if err != nil || !answered[raw.Resource] {
		t.Fatalf("answered %v (%v): the next job would buy %s again", answered, err, raw.Resource)
	}
}
