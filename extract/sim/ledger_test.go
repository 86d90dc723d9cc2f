package sim_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/etalake/etalake/extract/sim"
	"github.com/etalake/etalake/extract/sim/simtest"
)

// An answer written whole is stamped when it was, after it arrived; the
// stamp is in the ledger and in GET /_sim/ledger.
func TestLedgerRecordsWhenAnAnswerWasWritten(t *testing.T) {
	env := simtest.Start(t, simtest.Options{})
	port := simtest.Port(t, env.Service.World(), env.Service.World().Config().Start)
	if a := get(t, env, "test", sim.SchedulePrefix+"/schedule/"+port); a.status != http.StatusOK {
		t.Fatalf("%d %s", a.status, a.body)
	}
	// The client may read the answer before the handler stamps it: Close
	// waits for every handler to return.
	env.Server.Close()
	l := env.Service.Ledger()
	if len(l) != 1 || !l[0].Charged || l[0].WrittenAt.IsZero() || l[0].WrittenAt.Before(l[0].At) {
		t.Fatalf("ledger = %s, want one charged entry written at or after its arrival", mustJSON(l))
	}
	rec := httptest.NewRecorder()
	env.Service.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, sim.AdminPrefix+"ledger", nil))
	var served []sim.LedgerEntry
	if err := json.Unmarshal(rec.Body.Bytes(), &served); err != nil {
		t.Fatal(err)
	}
	if len(served) != 1 || !served[0].WrittenAt.Equal(l[0].WrittenAt) {
		t.Fatalf("GET /_sim/ledger = %s, want the written_at of %s", rec.Body, mustJSON(l))
	}
}

// A client that goes away during the latency gets no answer, and the
// ledger says so with a zero WrittenAt: it was charged, but nothing was
// written.
func TestLedgerLeavesAnAnswerNeverWrittenUnstamped(t *testing.T) {
	sleeping := make(chan struct{})
	svc, err := sim.New(sim.Config{
		World: simtest.World(sim.WorldConfig{}),
		Keys:  []sim.KeySpec{{Key: "k", Schedule: simtest.Credits(10)}},
		// The latency lasts until the client goes away.
		Sleep: func(ctx context.Context, _ time.Duration) error {
			close(sleeping)
			<-ctx.Done()
			return ctx.Err()
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(svc)
	defer srv.Close()
	port := simtest.Port(t, svc.World(), svc.World().Config().Start)

	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+sim.SchedulePrefix+"/schedule/"+port, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header["API_KEY"] = []string{"k"}
	go func() {
		<-sleeping
		cancel()
	}()
	if resp, err := srv.Client().Do(req); !errors.Is(err, context.Canceled) {
		if err == nil {
			resp.Body.Close()
		}
		t.Fatalf("request during the latency: %v, want it canceled", err)
	}
	srv.Close() // waits for the handler to return
	l := svc.Ledger()
	if len(l) != 1 || !l[0].Charged || !l[0].WrittenAt.IsZero() {
		t.Fatalf("ledger = %s, want one charged entry never written", mustJSON(l))
	}
}
