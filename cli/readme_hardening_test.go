package cli

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// unitSettings returns a unit's settings, each key's values in order (a
// key may be given more than once).
func unitSettings(unit string) map[string][]string {
	s := map[string][]string{}
	for _, l := range strings.Split(unit, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") || strings.HasPrefix(l, "[") {
			continue
		}
		if k, v, ok := strings.Cut(l, "="); ok {
			s[k] = append(s[k], v)
		}
	}
	return s
}

// systemdSpan parses a systemd time span of the forms the README uses:
// "23h", "22h 30min", "82800" (seconds).
func systemdSpan(v string) (time.Duration, bool) {
	if n, err := strconv.Atoi(v); err == nil {
		return time.Duration(n) * time.Second, true
	}
	d, err := time.ParseDuration(strings.ReplaceAll(strings.ReplaceAll(v, "min", "m"), " ", ""))
	return d, err == nil
}

// exposureRE is the last line of `systemd-analyze security`.
var exposureRE = regexp.MustCompile(`Overall exposure level for \S+: ([0-9.]+)`)

// TestREADMESystemdServicesHardened holds the README's services to what
// its text promises. The nightly one has a RuntimeMaxSec below the
// timer's 24 h, on a service type it acts on — systemd.service(5):
// "Note that this setting does not have any effect on Type=oneshot
// services, as they terminate immediately after activation completed
// (use TimeoutStartSec= to limit their activation)". Each service is
// read-only but for what etalake writes (ProtectSystem=strict: "the
// entire file system hierarchy is mounted read-only, except for the API
// file system subtrees /dev/, /proc/ and /sys/"): the warehouse the
// README's install line creates, the state directory, a metrics file's
// directory when one is set. And `systemd-analyze security --offline`
// rates each no worse than the figure the README states.
func TestREADMESystemdServicesHardened(t *testing.T) {
	text := docsText(t)
	units, names := readmeUnits(t)
	warehouse := regexp.MustCompile(`install -d -o etalake (\S+)`).FindStringSubmatch(text)
	if warehouse == nil {
		t.Fatal("README.md and docs/*.md have no `install -d -o etalake DIR` creating the warehouse")
	}
	var services []string
	for _, name := range names {
		if !strings.HasSuffix(name, ".service") {
			continue
		}
		services = append(services, name)
		s := unitSettings(units[name])
		one := func(k string) string { return strings.Join(s[k], " ") }
		if one("ProtectSystem") != "strict" || one("NoNewPrivileges") != "yes" || one("PrivateTmp") != "yes" || one("ProtectHome") != "yes" {
			t.Errorf("%s: ProtectSystem=%q NoNewPrivileges=%q PrivateTmp=%q ProtectHome=%q; want strict, yes, yes, yes", name, one("ProtectSystem"), one("NoNewPrivileges"), one("PrivateTmp"), one("ProtectHome"))
		}
		writable := strings.Fields(one("ReadWritePaths"))
		for _, d := range strings.Fields(one("StateDirectory")) {
			writable = append(writable, "/var/lib/"+d)
		}
		canWrite := func(p string) bool {
			for _, w := range writable {
				if p == w || strings.HasPrefix(p, strings.TrimSuffix(w, "/")+"/") {
					return true
				}
			}
			return false
		}
		if !canWrite(warehouse[1]) {
			t.Errorf("%s: ReadWritePaths %v lacks the warehouse %s (its lock, .work and mirror)", name, writable, warehouse[1])
		}
		for _, e := range s["Environment"] {
			k, v, _ := strings.Cut(e, "=")
			if (k == "ETALAKE_STATE_DIR" && !canWrite(v)) || (k == "ETALAKE_METRICS_FILE" && !canWrite(filepath.Dir(v))) {
				t.Errorf("%s: %s=%s is not under a writable path %v", name, k, v, writable)
			}
		}
		if strings.Contains(one("ExecStart"), " run ") {
			limit, ok := systemdSpan(one("RuntimeMaxSec"))
			if !ok || limit <= 0 || limit >= 24*time.Hour || one("Type") == "oneshot" {
				t.Errorf("%s: RuntimeMaxSec=%q on Type=%s; want a limit under the timer's 24 h, on a type it acts on (not oneshot)", name, one("RuntimeMaxSec"), one("Type"))
			}
		}
	}
	if len(services) < 2 {
		t.Fatalf("README.md's services: %v; want the nightly one and the webhook receiver", services)
	}
	claim := regexp.MustCompile(`security --offline=true` + "`" + ` rates both units \*\*([0-9.]+)\*\*`).FindStringSubmatch(strings.Join(strings.Fields(text), " "))
	if claim == nil {
		t.Fatal("README.md does not state the exposure `systemd-analyze security --offline=true` rates the units (rates both units **N**)")
	}
	want, _ := strconv.ParseFloat(claim[1], 64)

	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("systemd-analyze is not installed (Debian: apt-get install systemd; .ci/run tries): the settings above are checked, the exposure is not rated")
	}
	root := t.TempDir()
	paths := writeUnitRoot(t, root, units, services)
	for i, p := range paths {
		// --offline=true (systemd 250 and later) reads the unit file
		// alone, with no running systemd.
		cmd := exec.Command(analyze, "security", "--offline=true", "--root="+root, strings.TrimPrefix(p, root))
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		m := exposureRE.FindStringSubmatch(out.String())
		if m == nil {
			t.Errorf("systemd-analyze security --offline=true %s: %v, no exposure level:\n%s", services[i], errOrOK(err), out.String())
			continue
		}
		got, _ := strconv.ParseFloat(m[1], 64)
		t.Logf("%s: exposure %.1f", services[i], got)
		if got > want {
			t.Errorf("systemd-analyze security rates %s %.1f, above the README's %.1f:\n%s", services[i], got, want, out.String())
		}
	}
}
