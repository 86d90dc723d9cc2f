package cli

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// unitPathRE is the first line of a README block that is a systemd unit:
// a comment naming where the unit goes.
var unitPathRE = regexp.MustCompile(`^# (/etc/systemd/system/[\w.@-]+\.(?:service|timer))\n`)

// TestREADMESystemdUnitsVerify runs `systemd-analyze verify` on the
// service and the timer as README.md writes them (an operator copies them
// from there), so a unit systemd would read otherwise — a comment at the
// end of a setting is part of its value — fails here. It runs in a root
// of its own: the units under etc/systemd/system, the host's own units
// (timers.target, …) beside them, and an executable where ExecStart
// names the binary, so nothing on the host is touched or needed.
func TestREADMESystemdUnitsVerify(t *testing.T) {
	units, names := readmeUnits(t)
	var service, timer bool
	for name := range units {
		service = service || strings.HasSuffix(name, ".service")
		timer = timer || strings.HasSuffix(name, ".timer")
	}
	if !service || !timer {
		t.Fatalf("README.md and docs/*.md have no ```ini block starting with # /etc/systemd/system/NAME.service and one with NAME.timer (found %v)", names)
	}

	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("systemd-analyze is not installed (Debian: apt-get install systemd; .ci/run tries): the README's units are not verified")
	}
	hostUnits := ""
	for _, d := range []string{"/usr/lib/systemd/system", "/lib/systemd/system"} {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			hostUnits = d
			break
		}
	}
	if hostUnits == "" {
		t.Skip("systemd-analyze is installed but the host has no /usr/lib/systemd/system to resolve timers.target and the like")
	}

	root := t.TempDir()
	copyUnitDir(t, hostUnits, filepath.Join(root, "usr/lib/systemd/system"))
	args := writeUnitRoot(t, root, units, names)
	cmd := exec.Command(analyze, append([]string{"verify", "--root=" + root}, args...)...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	t.Logf("systemd-analyze verify %s: %v\n%s", strings.Join(names, " "), errOrOK(err), out.String())
	if err != nil || strings.TrimSpace(out.String()) != "" {
		t.Errorf("systemd-analyze verify complains about the README's units (%v):\n%s", errOrOK(err), out.String())
	}
}

// readmeUnits returns the units README.md writes, by the path each goes
// to, and those paths in the README's order.
func readmeUnits(t *testing.T) (map[string]string, []string) {
	t.Helper()
	units := map[string]string{}
	var names []string
	for _, b := range docBlocks(t) {
		if m := unitPathRE.FindStringSubmatch(b.text); b.lang == "ini" && m != nil {
			units[m[1]] = b.text
			names = append(names, m[1])
		}
	}
	return units, names
}

// writeUnitRoot writes the units under root at their paths, and an
// executable where ExecStart names a program, and returns the units'
// paths.
func writeUnitRoot(t *testing.T, root string, units map[string]string, names []string) []string {
	t.Helper()
	var paths []string
	for _, name := range names {
		p := filepath.Join(root, name)
		writeUnitFile(t, p, units[name], 0o644)
		paths = append(paths, p)
		for _, exe := range execPaths(units[name]) {
			writeUnitFile(t, filepath.Join(root, exe), "#!/bin/sh\nexit 0\n", 0o755)
		}
	}
	return paths
}

// execPaths returns the programs a unit's Exec*= settings run.
func execPaths(unit string) []string {
	var paths []string
	for _, l := range strings.Split(unit, "\n") {
		k, v, ok := strings.Cut(l, "=")
		if !ok || !strings.HasPrefix(strings.TrimSpace(k), "Exec") {
			continue
		}
		fields := strings.Fields(v)
		if len(fields) == 0 {
			continue
		}
		if p := strings.TrimLeft(fields[0], "-@:+!"); filepath.IsAbs(p) {
			paths = append(paths, p)
		}
	}
	return paths
}

// copyUnitDir copies a unit directory: its files, and its symbolic links
// as links (aliases of units within it).
func copyUnitDir(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(from, path)
		if err != nil {
			return err
		}
		dst := filepath.Join(to, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(dst, 0o755)
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(path)
			if err != nil {
				return err
			}
			return os.Symlink(target, dst)
		case d.Type().IsRegular():
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			return os.WriteFile(dst, b, 0o644)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("copying the host's units from %s: %v", from, err)
	}
}

func writeUnitFile(t *testing.T, path, text string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), mode); err != nil {
		t.Fatal(err)
	}
}

func errOrOK(err error) string {
	if err == nil {
		return "exit 0"
	}
	return err.Error()
}
