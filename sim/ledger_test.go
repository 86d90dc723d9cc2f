package sim_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/etalake/etalake/sim"
	"github.com/etalake/etalake/sim/simtest"
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

// The ledger names a key by a one-way id: the same for the same key,
// another for another, and holding nothing of the key.
func TestLedgerNamesKeysByID(t *testing.T) {
	const key = "ledger-key-4242"
	id := sim.KeyID(key)
	if id != sim.KeyID(key) || id == sim.KeyID(key+"x") || len(id) != 16 || strings.Contains(id, key) {
		t.Fatalf("KeyID(%q) = %q: want 16 hex digits, stable, distinct, without the key", key, id)
	}
	env := simtest.Start(t, simtest.Options{Keys: []sim.KeySpec{{Key: key, Schedule: simtest.Credits(1)}}})
	if a := get(t, env, key, sim.SchedulePrefix+"/consumption/current-period"); a.status != http.StatusOK {
		t.Fatalf("%d %s", a.status, a.body)
	}
	if l := env.Service.Ledger(); len(l) != 1 || l[0].KeyID != id || strings.Contains(mustJSON(l), key) {
		t.Fatalf("ledger = %s, want one entry of key id %s and no key", mustJSON(l), id)
	}
}
