package sim_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/sim"
	"github.com/etalake/etalake/sim/simtest"
	"github.com/etalake/etalake/wire"
)

// pushed is the payload of a push, decoded by the test.
type pushed struct {
	Type      string    `json:"type"`
	Timestamp time.Time `json:"timestamp"`
	Data      struct {
		ContainerNumber  string        `json:"containerNumber"`
		PreviousPODDate  *time.Time    `json:"previousPodDate"`
		PODDate          *time.Time    `json:"podDate"`
		ContainerDetails wire.Shipment `json:"containerDetails"`
	} `json:"data"`
}

// The vendor pushes, for the shipments it was asked about, a container
// discharged at the POD when its CDD event becomes actual, and a POD date
// moved by more than 24 hours when the route's pod.date of its answers
// moved that far — each push carrying the answer at that moment, as a
// fetch then would have it.
func TestPushesAreTheEventsTheAnswersShow(t *testing.T) {
	slowtest.Long(t)
	w := simtest.World(sim.WorldConfig{})
	svc, err := sim.New(sim.Config{World: w})
	if err != nil {
		t.Fatal(err)
	}
	start := w.Config().Start
	var subscribed []wire.ShipmentRef
	for _, ref := range w.Shipments() {
		if _, err := w.Shipment(ref, start); err == nil {
			subscribed = append(subscribed, ref)
		}
	}
	svc.Subscribe(subscribed...)
	svc.Clock().Advance(40 * 24 * time.Hour)
	pushes := svc.DuePushes()
	if again := svc.DuePushes(); len(again) != 0 {
		t.Fatalf("DuePushes listed %d pushes again", len(again))
	}
	ids := map[string]bool{}
	kinds := map[string]int{}
	for i, p := range pushes {
		if ids[p.ID] {
			t.Fatalf("push id %s given twice", p.ID)
		}
		ids[p.ID] = true
		kinds[p.Type]++
		if i > 0 && p.At.Before(pushes[i-1].At) {
			t.Fatalf("pushes out of order at %d", i)
		}
		var b pushed
		if err := json.Unmarshal(p.Body, &b); err != nil {
			t.Fatal(err)
		}
		fetched, err := w.Shipment(p.Ref, p.At)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(fetched)
		got, _ := json.Marshal(b.Data.ContainerDetails)
		if string(want) != string(got) || !b.Timestamp.Equal(p.At) || b.Type != p.Type {
			t.Fatalf("push %s of %s at %s: its body is not the answer at that moment", p.Type, p.Ref.Number, p.At)
		}
		switch p.Type {
		case sim.PushDischarged:
			if !dischargedAt(fetched, p.Container, p.At) {
				t.Fatalf("push %s: container %s shows no actual CDD at %s", p.ID, p.Container, p.At)
			}
			before, _ := w.Shipment(p.Ref, p.At.Add(-time.Second))
			if dischargedAt(before, p.Container, p.At) {
				t.Fatalf("push %s: container %s was discharged before %s", p.ID, p.Container, p.At)
			}
		case sim.PushPODDateChanged:
			now := fetched.Route.Pod.Date
			if b.Data.PODDate == nil || b.Data.PreviousPODDate == nil || !b.Data.PODDate.Equal(*now) {
				t.Fatalf("push %s: pod dates %v → %v, the answer says %v", p.ID, b.Data.PreviousPODDate, b.Data.PODDate, now)
			}
			if d := b.Data.PODDate.Sub(*b.Data.PreviousPODDate); d <= 24*time.Hour && d >= -24*time.Hour {
				t.Fatalf("push %s: the POD date moved %s, not more than 24 h", p.ID, d)
			}
		default:
			t.Fatalf("push of type %q", p.Type)
		}
	}
	// Every discharge of the span is pushed.
	want := 0
	end := svc.Clock().Now()
	for _, ref := range subscribed {
		sh, err := w.Shipment(ref, end)
		if err != nil {
			continue
		}
		for _, c := range sh.Containers {
			for _, e := range c.Events {
				if e.Status == "CDD" && e.IsActual && e.Date.After(start) && !e.Date.After(end) {
					want++
				}
			}
		}
	}
	t.Logf("%d shipments subscribed, 40 days: %v", len(subscribed), kinds)
	if kinds[sim.PushDischarged] != want || want == 0 {
		t.Fatalf("%d discharges pushed, the answers show %d", kinds[sim.PushDischarged], want)
	}
	if kinds[sim.PushPODDateChanged] == 0 {
		t.Fatal("no POD date change pushed in 40 days")
	}
}

func dischargedAt(s *wire.Shipment, container string, at time.Time) bool {
	for _, c := range s.Containers {
		if c.Number != container {
			continue
		}
		for _, e := range c.Events {
			if e.Status == "CDD" && e.IsActual && e.Date != nil && e.Date.Equal(at) {
				return true
			}
		}
	}
	return false
}

// Asking for a shipment subscribes it from then on; nothing is pushed
// for a shipment never asked.
func TestAShipmentIsPushedForOnceAsked(t *testing.T) {
	env := simtest.Start(t, simtest.Options{Keys: []sim.KeySpec{{Key: "push-key-1", Tracking: simtest.Credits(10)}}})
	w := env.Service.World()
	start := w.Config().Start
	ref := simtest.Shipment(t, w, start)
	env.Service.Clock().Advance(24 * time.Hour)
	asked := env.Service.Clock().Now()
	req, _ := http.NewRequest(http.MethodGet, env.TrackingURL+"/shipment?"+wire.ShipmentQuery(ref.Number, string(ref.Type), ref.Sealine).Encode(), nil)
	req.Header.Set("API_KEY", "push-key-1")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("asking %s: %d", ref.Number, resp.StatusCode)
	}
	env.Service.Clock().Advance(60 * 24 * time.Hour)
	pushes := env.Service.DuePushes()
	for _, p := range pushes {
		if p.Ref.Number != ref.Number || !p.At.After(asked) {
			t.Fatalf("a push of %s at %s; only %s was asked, at %s", p.Ref.Number, p.At, ref.Number, asked)
		}
	}
	if len(pushes) == 0 {
		t.Fatalf("no push of %s in the 60 days after it was asked", ref.Number)
	}
}

// The vendor's sender signs each attempt at its moment, retries a push
// the receiver did not take 2xx on the standard's schedule ("Immediately,
// 5 seconds, 5 minutes, …") with the same id and a new timestamp, and
// stops sending to a receiver that answered 410 Gone ("Sender should
// disable the webhook endpoint, and stop sending it messages").
func TestThePusherRetriesAsTheStandardSays(t *testing.T) {
	w := simtest.World(sim.WorldConfig{})
	svc, err := sim.New(sim.Config{World: w})
	if err != nil {
		t.Fatal(err)
	}
	svc.Subscribe(w.Shipments()...)
	var mu sync.Mutex
	status := http.StatusServiceUnavailable
	type seen struct {
		id string
		ts int64
	}
	var got []seen
	key := []byte("0123456789abcdef0123456789abcdef")
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		ts, _ := strconv.ParseInt(r.Header.Get("webhook-timestamp"), 10, 64)
		got = append(got, seen{r.Header.Get("webhook-id"), ts})
		body, _ := io.ReadAll(r.Body)
		if r.Header.Get("webhook-signature") != sim.SignWebhook([][]byte{key}, r.Header.Get("webhook-id"), ts, body) {
			rw.WriteHeader(http.StatusTeapot)
			return
		}
		rw.WriteHeader(status)
	}))
	defer srv.Close()
	real := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	p, err := sim.NewPusher(svc, sim.PushConfig{URL: srv.URL, Secrets: [][]byte{key}, Now: func() time.Time { return real }})
	if err != nil {
		t.Fatal(err)
	}
	svc.Clock().Advance(2 * time.Hour)
	first := p.Flush(context.Background())
	for len(first) == 0 {
		svc.Clock().Advance(2 * time.Hour)
		first = p.Flush(context.Background())
	}
	n := len(first)
	if first[0].Status != http.StatusServiceUnavailable || first[0].N != 1 || p.Pending() != n {
		t.Fatalf("first attempt: status %d (%v), attempt %d, %d pending; want 503s, all pending", first[0].Status, first[0].Err, first[0].N, p.Pending())
	}
	if again := p.Flush(context.Background()); len(again) != 0 {
		t.Fatalf("%d attempts before the 5 s of the schedule", len(again))
	}
	real = real.Add(5 * time.Second)
	mu.Lock()
	status = http.StatusNoContent
	mu.Unlock()
	second := p.Flush(context.Background())
	if len(second) != n || second[0].N != 2 || second[0].Err != nil || p.Pending() != 0 {
		t.Fatalf("after 5 s: %d attempts, %d pending; want %d second attempts taken", len(second), p.Pending(), n)
	}
	mu.Lock()
	a, b := got[0], got[n]
	mu.Unlock()
	if a.id != b.id || b.ts != a.ts+5 {
		t.Fatalf("the retry: id %s at %d after %s at %d; want the same id, signed 5 s later", b.id, b.ts, a.id, a.ts)
	}
	mu.Lock()
	status = http.StatusGone
	mu.Unlock()
	svc.Clock().Advance(10 * 24 * time.Hour)
	gone := p.Flush(context.Background())
	if len(gone) < 2 || gone[0].Status != http.StatusGone || !gone[1].GivenUp || gone[1].Status != 0 {
		for _, a := range gone[:min(2, len(gone))] {
			t.Logf("attempt %d of %s: %d, %v, given up %v", a.N, a.Push.ID, a.Status, a.Err, a.GivenUp)
		}
		t.Fatalf("after a 410: %d attempts; want the first answered 410 and the rest given up unsent", len(gone))
	}
}
