package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/etalake/etalake/extract"
	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/jobs"
	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/sim"
	"github.com/etalake/etalake/sim/simtest"
)

// jsonLines reads out as a log collector would: every line one JSON
// object with a time, a level and a message. It fails the test on any
// line that is not.
func jsonLines(t *testing.T, where, out string) []map[string]any {
	t.Helper()
	var events []map[string]any
	for i, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if line == "" && out == "" {
			break
		}
		var ev map[string]any
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Errorf("%s line %d is not a JSON object (%v):\n%s", where, i+1, err, line)
			continue
		}
		for _, k := range []string{"time", "level", "msg"} {
			if _, ok := ev[k]; !ok {
				t.Errorf("%s line %d has no %q: %s", where, i+1, k, line)
			}
		}
		events = append(events, ev)
	}
	return events
}

// byMsg are the events with message msg.
func byMsg(events []map[string]any, msg string) []map[string]any {
	var out []map[string]any
	for _, ev := range events {
		if ev["msg"] == msg {
			out = append(out, ev)
		}
	}
	return out
}

// A nightly run against a service that fails and cuts answers short, with
// a bad input row, a shipment the service does not know and a credit cap,
// logged as JSON: every line on stdout and stderr is one JSON object, the
// summary is the last line on stdout and says what the text summary says
// (partial, the cap, the skipped row, the unknown shipment, the exit
// code), and the last line on stderr is the "exit" event with the code
// the process exits with. The dry run before it says it exits 0, and
// does; a usage error is a JSON line too.
func TestTheJSONLogOfARunWithFaultsIsOneObjectALine(t *testing.T) {
	slowtest.Long(t)
	env := simtest.Start(t, simtest.Options{
		Keys:   []sim.KeySpec{{Key: cliKey, Schedule: simtest.Credits(100), Tracking: simtest.Credits(100)}},
		Rate:   sim.Rate{N: 1000, Window: time.Second},
		Faults: sim.Faults{ErrorRate: 0.15, TruncateRate: 0.15, LatencyMedian: 5 * time.Millisecond, LatencyP99: 20 * time.Millisecond, Seed: 7},
	})
	w := env.Service.World()
	ports := w.Ports()
	var sel []string
	for _, p := range ports[:8] {
		sel = append(sel, p.Locode)
	}
	ships := visibleShipments(t, w, 6)
	csv := "shipment_number,shipment_type,sealine\n" + strings.Join(ships, "\n") + "\n\"MSCU1234566,CT,\nMAEU999999999,BL,MAEU\n"
	file := filepath.Join(t.TempDir(), "shipments.csv")
	if err := os.WriteFile(file, []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"ETALAKE_SCHEDULE_URL": env.ScheduleURL, "ETALAKE_TRACKING_URL": env.TrackingURL, "ETALAKE_API_KEY": cliKey,
		"ETALAKE_RATE": "1000/1s", "ETALAKE_WAREHOUSE": t.TempDir(), "ETALAKE_LOG_FORMAT": "json", "ETALAKE_PROGRESS_INTERVAL": "20ms"}
	args := []string{"run", "--date", w.Config().Start.Format(time.DateOnly), "--ports", strings.Join(sel, ","), "--max-credits", "5", "--shipments", file}

	code, out, errOut := run(t, vars, append(args, "--dry-run")...)
	stdout, stderr := jsonLines(t, "dry run stdout", out), jsonLines(t, "dry run stderr", errOut)
	if code != exitOK || len(byMsg(stdout, "plan")) != 1 {
		t.Fatalf("dry run: exit %d, want 0 and a plan event\n%s%s", code, out, errOut)
	}
	if end := byMsg(stderr, "run: ended"); len(end) != 1 || end[0]["exit_code"] != float64(exitOK) || end[0]["dry_run"] != true {
		t.Errorf("the dry run's end line %v does not say it exits 0", end)
	}

	code, out, errOut = run(t, vars, args...)
	stdout, stderr = jsonLines(t, "stdout", out), jsonLines(t, "stderr", errOut)
	if code != exitPartial {
		t.Fatalf("exit %d, want %d (partial)\n%s%s", code, exitPartial, out, errOut)
	}
	if len(stdout) != 1 || stdout[0]["msg"] != "summary" {
		t.Fatalf("stdout holds %d events, want the summary alone:\n%s", len(stdout), out)
	}
	sum := stdout[0]
	if sum["status"] != "partial" || sum["verdict"] != "partial" || sum["exit_code"] != float64(exitPartial) || sum["level"] != "WARN" {
		t.Errorf("summary: status %v, verdict %v, exit code %v, level %v; want partial, partial, 3, WARN", sum["status"], sum["verdict"], sum["exit_code"], sum["level"])
	}
	if sched := sum["schedule"].(map[string]any); sched["credits"].(float64)+sched["possibly_charged"].(float64) > 5 {
		t.Errorf("summary: %v schedule credits over the cap of 5", sched)
	}
	if skipped := fmt.Sprint(sum["skipped"]); !strings.Contains(skipped, "shipments.csv:8: a quote is not closed") {
		t.Errorf("summary: skipped %s, want line 8 and why", skipped)
	}
	if !strings.Contains(fmt.Sprint(sum["not_found"]), "MAEU999999999") {
		t.Errorf("summary: not found %v, want MAEU999999999", sum["not_found"])
	}
	if sf := sum["shortfalls"].(map[string]any); sf["skipped_input_rows"] != float64(1) || sf["stopped_unasked"] == nil {
		t.Errorf("summary: shortfalls %v, want the skipped row and the requests the cap stopped", sf)
	}
	last := stderr[len(stderr)-1]
	if last["msg"] != "exit" || last["exit_code"] != float64(code) || !strings.Contains(fmt.Sprint(last["error"]), "run ended partial") {
		t.Errorf("the last line on stderr is %v, want the exit event with code %d", last, code)
	}
	if n := len(byMsg(stderr, "run: ended")); n != 1 {
		t.Errorf("%d run: ended lines", n)
	}
	for _, ev := range byMsg(stderr, "run: progress") {
		if ev["total"].(float64) > float64(5+len(ships)+1) || ev["done"].(float64) > ev["total"].(float64) {
			t.Errorf("progress %v counts more than the cap lets through", ev)
		}
	}
	warned := 0
	for _, ev := range stderr {
		if ev["level"] == "WARN" && strings.HasPrefix(fmt.Sprint(ev["msg"]), "run: ") {
			warned++
		}
	}
	t.Logf("stderr: %d events (%d progress, %d run warnings); summary: %s", len(stderr), len(byMsg(stderr, "run: progress")), warned, out)

	code, out, errOut = run(t, vars, "run", "--max-credits", "-5")
	if code != exitUsage || out != "" {
		t.Fatalf("a usage error: exit %d, stdout %q", code, out)
	}
	if ev := jsonLines(t, "usage error", errOut); len(ev) != 1 || ev[0]["exit_code"] != float64(exitUsage) || ev[0]["level"] != "ERROR" {
		t.Errorf("a usage error under json: %s", errOut)
	}
}

// visibleShipments are n CSV rows of shipments the world shows at its
// start.
func visibleShipments(t *testing.T, w *sim.World, n int) []string {
	t.Helper()
	var rows []string
	for _, ref := range w.Shipments() {
		if _, err := w.Shipment(ref, w.Config().Start); err == nil {
			rows = append(rows, fmt.Sprintf("%s,%s,%s", ref.Number, ref.Type, ref.Sealine))
		}
		if len(rows) == n {
			return rows
		}
	}
	t.Fatalf("only %d shipments visible", len(rows))
	return nil
}

// Under --log-format json every command's lines are JSON: what track,
// import, replay, credits and the simulator's responses say they did,
// the tracked list, and their log. sql's and report's output is as their
// own options ask.
func TestEveryCommandSpeaksJSONWhenAsked(t *testing.T) {
	slowtest.Long(t)
	env := cliSim(t)
	w := env.Service.World()
	ref := w.Shipments()[0]
	in := filepath.Join(t.TempDir(), "responses")
	vars := map[string]string{"ETALAKE_SCHEDULE_URL": env.ScheduleURL, "ETALAKE_TRACKING_URL": env.TrackingURL, "ETALAKE_API_KEY": cliKey,
		"ETALAKE_RATE": "1000/1s", "ETALAKE_WAREHOUSE": t.TempDir(), "ETALAKE_LOG_FORMAT": "json"}
	for _, args := range [][]string{
		{"sim", "responses", "--shipments", "5", "--days", "1", "--out", in},
		{"track", "add", fmt.Sprintf("%s:%s:%s", ref.Number, ref.Type, ref.Sealine), "BAD"},
		{"track", "list"},
		{"import", in},
		{"replay"},
		{"credits"},
		{"track", "rm", fmt.Sprintf("%s:%s:%s", ref.Number, ref.Type, ref.Sealine)},
		{"track", "nosuch"},
	} {
		code, out, errOut := run(t, vars, args...)
		stdout, stderr := jsonLines(t, strings.Join(args, " ")+" stdout", out), jsonLines(t, strings.Join(args, " ")+" stderr", errOut)
		if code != exitOK && (len(stderr) == 0 || stderr[len(stderr)-1]["exit_code"] != float64(code)) {
			t.Errorf("%v: exit %d, and the last line on stderr does not say so:\n%s", args, code, errOut)
		}
		if code == exitOK && len(stdout) == 0 {
			t.Errorf("%v: nothing on stdout", args)
		}
		t.Logf("%v: exit %d, %d events on stdout, %d on stderr", args, code, len(stdout), len(stderr))
	}
}

// The JSON summary carries every fact of a run's result: a field added to
// jobs.RunResult, load.Run or jobs.Plan (say, the resources given up)
// must be rendered by summaryAttrs, or named here as none of the
// summary's business, before this passes — the text summary and the
// JSON one are read from the same fields, and this keeps them in step.
func TestTheJSONSummaryCarriesEveryFact(t *testing.T) {
	rendered := map[string][]string{
		"RunResult": {"Run", "Plan", "Verdict", "NotFound", "Failed", "Refused", "Broken", "PagingStopped", "Reopened", "Reask", "Unasked", "Rest", "Skipped", "Warnings", "Stopped", "DeadLetters", "Quarantined"},
		"Run": {"ID", "Job", "LogicalDate", "StartedAt", "EndedAt", "Status", "ExitCode", "StopReason", "Error", "Requests", "ByStatus",
			"SpentSchedule", "UncertainSchedule", "CallsTracking", "UncertainTracking", "BalanceScheduleBefore", "BalanceScheduleAfter",
			"BalanceTrackingBefore", "BalanceTrackingAfter", "Rows", "Shortfalls", "GivenUp", "Shard"},
		"Plan": {"AlreadyLanded", "Finished", "Resumed", "Reasked", "Reopened", "GivenUp", "Refresh"},
	}
	// In etl_runs, not the summary's business: what was asked (the
	// command line) and by which version; and the plan's pricing and the
	// shard's part, which the plan event (dry run) carries (the summary
	// names the shard: Run.Shard).
	notSummary := map[string][]string{
		"Run": {"Args", "Version"},
		"Plan": {"Job", "LogicalDate", "Requests", "ScheduleAPI", "ScheduleLow", "ScheduleHigh", "Guessed", "MaxPages", "Free", "BalanceSchedule", "BalanceTracking", "CapSchedule", "CapTracking", "Rate",
			"Billing", "ShipmentMonths", "Shard"},
	}
	for _, typ := range []reflect.Type{reflect.TypeFor[jobs.RunResult](), reflect.TypeFor[load.Run](), reflect.TypeFor[jobs.Plan]()} {
		for i := range typ.NumField() {
			f := typ.Field(i)
			if !f.IsExported() {
				continue
			}
			if !slices.Contains(rendered[typ.Name()], f.Name) && !slices.Contains(notSummary[typ.Name()], f.Name) {
				t.Errorf("%s.%s is new: render it in summaryAttrs (events.go) beside writeSummary's line, and list it here", typ.Name(), f.Name)
			}
		}
	}
	// Every key is there, whatever the run did: a machine reads one shape.
	keys := map[string]bool{}
	for _, a := range summaryAttrs(jobs.RunResult{}) {
		keys[a.Key] = true
	}
	for _, k := range []string{"job", "run", "status", "verdict", "exit_code", "requests", "schedule", "tracking", "rows", "not_found", "failed", "refused",
		"broken", "paging_stopped", "given_up", "skipped", "warnings", "stopped", "unasked", "rest", "shortfalls", "stop_reason", "error", "dead_letters"} {
		if !keys[k] {
			t.Errorf("the summary has no %q", k)
		}
	}
}

// Every command takes --log-format and --log-level (and their
// variables), and the fetching jobs --progress-interval: a scheduler sets
// them once for all.
func TestEveryCommandTakesTheLogFlags(t *testing.T) {
	var walk func(path string, cmds []*cli.Command)
	walk = func(path string, cmds []*cli.Command) {
		for _, cmd := range cmds {
			name := strings.TrimSpace(path + " " + cmd.Name)
			if len(cmd.Subcommands) > 0 {
				walk(name, cmd.Subcommands)
				continue
			}
			if cmd.Name == "help" {
				continue
			}
			has := map[string]bool{}
			for _, f := range cmd.Flags {
				for _, n := range f.Names() {
					has[n] = true
				}
			}
			want := []string{flagLogFormat, flagLogLevel}
			if name == "run" || name == "backfill" {
				want = append(want, flagProgressInterval)
			}
			for _, f := range want {
				if !has[f] {
					t.Errorf("etalake %s has no --%s", name, f)
				}
			}
		}
	}
	walk("", newApp().Commands)
}

// --log-level hides what is below it and refuses what is not a level.
func TestTheLogLevelHidesWhatIsBelowIt(t *testing.T) {
	slowtest.Long(t)
	env := map[string]string{"ETALAKE_WAREHOUSE": t.TempDir()}
	in := filepath.Join(t.TempDir(), "responses")
	if code, _, errOut := run(t, nil, "sim", "responses", "--shipments", "3", "--days", "1", "--out", in); code != exitOK {
		t.Fatal(errOut)
	}
	_, _, info := run(t, env, "import", in)
	_, _, warn := run(t, env, "import", "--log-level", "warn", in)
	if !strings.Contains(info, "level=INFO") || strings.Contains(warn, "level=INFO") {
		t.Errorf("--log-level warn did not hide the info lines:\ninfo:\n%s\nwarn:\n%s", info, warn)
	}
	env["ETALAKE_LOG_LEVEL"] = "chatty"
	if code, _, errOut := run(t, env, "import", in); code != exitUsage || !strings.Contains(errOut, "ETALAKE_LOG_LEVEL (--log-level) \"chatty\": want debug, info, warn or error") {
		t.Errorf("a bad level: exit %d\n%s", code, errOut)
	}
}

// The last line's format is read from the command line as cli would, so
// that a line that failed to parse is still worded as asked.
func TestTheExitLineFollowsTheLogFormatAsked(t *testing.T) {
	for _, tc := range []struct {
		args []string
		env  string
		want string
	}{
		{[]string{"etalake", "run"}, "", ""},
		{[]string{"etalake", "run"}, "json", "json"},
		{[]string{"etalake", "run", "--log-format", "json"}, "", "json"},
		{[]string{"etalake", "run", "--log-format=json"}, "text", "json"},
		{[]string{"etalake", "run", "-log-format", "json", "--log-format", "text"}, "", "text"},
		{[]string{"etalake", "sql", "--", "--log-format", "json"}, "", ""},
	} {
		if got := logFormatOf(tc.args, tc.env); got != tc.want {
			t.Errorf("%v with %q: %q, want %q", tc.args, tc.env, got, tc.want)
		}
	}
}

// A backfill asking before it spends, under --log-format json, asks in
// JSON too: the plan and the question are events, and the answer is read
// as on a terminal.
func TestTheQuestionBeforeABackfillIsJSONWhenAsked(t *testing.T) {
	balance := int64(40)
	p := jobs.Plan{Job: "backfill", LogicalDate: time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC), Requests: jobs.Requests{Ports: 3},
		ScheduleLow: 3, ScheduleHigh: 5, CapSchedule: extract.Unlimited, CapTracking: extract.Unlimited, BalanceSchedule: &balance}
	var out strings.Builder
	if !askToSpend(&out, true, strings.NewReader("yes\n"), p) {
		t.Fatal("yes was not taken for yes")
	}
	events := jsonLines(t, "the question", out.String())
	if len(events) != 2 || events[0]["msg"] != "plan" || events[1]["msg"] != "confirm" ||
		events[1]["question"] != "Spend 3–5 schedule credits (no more than 5) and 0 tracking calls? [y/N] " {
		t.Errorf("the question under json:\n%s", out.String())
	}
	if askToSpend(&out, true, strings.NewReader("\n"), p) {
		t.Error("no answer was taken for yes")
	}
}
