package cli

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/sim/simtest"
)

// cutPort serves the simulator, cutting, while on, every answer to one
// port's schedule in half under its whole Content-Length.
func cutPort(env *simtest.Env, port string, on *atomic.Bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !on.Load() || !strings.HasSuffix(r.URL.Path, "/schedule/"+port) {
			env.Service.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		env.Service.ServeHTTP(rec, r)
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes()[:rec.Body.Len()/2])
	})
}

// What an operator sees of a port whose answer always breaks: three
// backfills of the date end partial, the third saying in its summary that
// the port is given up, why, and the command that asks it now — naming
// the warehouse, the date and the port; a fourth asks nothing and says
// the same on its last line. Once the service recovers, the command
// pasted as printed asks the port and ends ok.
func TestCLIAGivenUpPortIsNamedWithACommandThatWorksWhenPasted(t *testing.T) {
	slowtest.Long(t)
	env := cliSim(t)
	w := env.Service.World()
	day := w.Config().Start
	var ports []string
	for _, p := range w.Ports() {
		if _, err := w.PortSchedule(p.Locode, day); err == nil {
			ports = append(ports, p.Locode)
		}
		if len(ports) == 2 {
			break
		}
	}
	var broken atomic.Bool
	broken.Store(true)
	env.Server.Config.Handler = cutPort(env, ports[0], &broken)
	wh := filepath.Join(t.TempDir(), "warehouse")
	vars := map[string]string{"ETALAKE_SCHEDULE_URL": env.ScheduleURL, "ETALAKE_API_KEY": cliKey, "ETALAKE_RATE": "1000/1s"}
	backfill := []string{"backfill", "--warehouse", wh, "--date", day.Format(time.DateOnly), "--ports", strings.Join(ports, ",")}

	var out, stderr string
	for job := 1; job <= 3; job++ {
		var code int
		code, out, stderr = run(t, vars, backfill...)
		if code != exitPartial {
			t.Fatalf("backfill %d: exit %d, want 3:\n%s%s", job, code, out, stderr)
		}
	}
	command := "etalake backfill --warehouse " + wh + " --date " + day.Format(time.DateOnly) + " --reask port:" + ports[0]
	for _, want := range []string{"given up   1 for " + day.Format(time.DateOnly), "port:" + ports[0] + " (3 jobs: ", "bytes", "ask now    " + command} {
		if !strings.Contains(out, want) {
			t.Errorf("the third summary lacks %q:\n%s", want, out)
		}
	}
	code, plan, _ := run(t, vars, append(backfill, "--dry-run")...)
	if code != exitOK || !strings.Contains(plan, "given up     1 not had for this date in --max-reasks jobs (port:"+ports[0]+")") {
		t.Errorf("the dry run does not say the port is given up:\n%s", plan)
	}
	before := len(env.Service.Ledger())
	code, out, stderr = run(t, vars, backfill...)
	if code != exitPartial || len(env.Service.Ledger()) != before || !strings.Contains(out, "ask now    "+command) ||
		!strings.Contains(stderr, "to ask them now: "+command) {
		t.Fatalf("fourth backfill: exit %d, %d requests: want 3, none, the command in the summary and on the last line:\n%s%s",
			code, len(env.Service.Ledger())-before, out, stderr)
	}

	broken.Store(false)
	pasted := strings.Fields(command)[1:] // without the program's name
	code, out, stderr = run(t, vars, pasted...)
	if code != exitOK || !strings.Contains(out, "reopened   1: port:"+ports[0]) || strings.Contains(out, "ask now") {
		t.Fatalf("the pasted command: exit %d, want 0 with the port asked again:\n%s%s", code, out, stderr)
	}
	code, out, _ = run(t, vars, "sql", "--warehouse", wh, "SELECT count(*) AS given_up FROM data_freshness WHERE given_up_date IS NOT NULL")
	if code != exitOK || !strings.Contains(out, "0") {
		t.Fatalf("data_freshness after the pasted command:\n%s", out)
	}
}
