package cli

import (
	"regexp"
	"strings"
	"testing"
)

// cronEnvRE is a crontab line that sets a variable rather than runs a job.
var cronEnvRE = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$`)

// TestREADMECronLineSaysItsTimeZone reads the crontab as README.md writes
// it. The nightly job's logical date is a UTC day (`run --date` defaults
// to today, UTC), and a cron daemon reads the five time fields in the
// machine's own zone unless the crontab says otherwise; so the crontab
// sets CRON_TZ=UTC on a line of its own before the job, and the job fires
// at the systemd timer's 02:15 UTC. cronie's crontab(5): "The CRON_TZ
// specifies the time zone specific for the cron table. The user
// should enter a time according to the specified time zone into the
// table."
func TestREADMECronLineSaysItsTimeZone(t *testing.T) {
	var crontab string
	for _, b := range docBlocks(t) {
		if b.lang == "cron" {
			crontab = b.text
		}
	}
	if crontab == "" {
		t.Fatal("README.md and docs/*.md have no ```cron block")
	}
	env := map[string]string{}
	var jobs []string
	for _, l := range strings.Split(crontab, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		// An environment setting has no spaces before its '='; a job's
		// first five fields hold none.
		if m := cronEnvRE.FindStringSubmatch(l); m != nil && !strings.ContainsAny(strings.SplitN(l, "=", 2)[0], " \t") {
			if len(jobs) > 0 {
				t.Errorf("crontab: %s is set after a job: cron applies a setting only to the lines below it", m[1])
			}
			env[m[1]] = m[2]
			continue
		}
		jobs = append(jobs, l)
	}
	if env["CRON_TZ"] != "UTC" {
		t.Errorf("the README's crontab sets CRON_TZ=%q; want CRON_TZ=UTC on a line of its own before the job (the night is a UTC day, and cron reads the time in the machine's zone otherwise)", env["CRON_TZ"])
	}
	if len(jobs) != 1 {
		t.Fatalf("the README's crontab has %d jobs; want the nightly run:\n%s", len(jobs), crontab)
	}
	f := strings.Fields(jobs[0])
	if len(f) < 6 || strings.Join(f[:5], " ") != "15 2 * * *" {
		t.Errorf("the crontab's job %q: want it at 02:15 (15 2 * * *), the systemd timer's time", jobs[0])
	}
	if !strings.Contains(jobs[0], "/usr/local/bin/etalake run ") || strings.Contains(jobs[0], "--date") {
		t.Errorf("the crontab's job %q: want `etalake run` for today's UTC date, its default", jobs[0])
	}
}
