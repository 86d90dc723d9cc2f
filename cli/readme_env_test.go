package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/etalake/etalake/internal/slowtest"
)

// TestEveryFlagHasAVariableOrASaidReason: an operator sets etalake up from
// a unit file's environment, so every flag of every command — those added
// later too — reads an ETALAKE_* variable, or is in the README's table of
// flags without one, with the reason. A row of that table that no longer
// names a flag without a variable fails too: the table says what is true.
func TestEveryFlagHasAVariableOrASaidReason(t *testing.T) {
	exempt, reads := envExemptions(t)
	used := map[string]bool{}
	forEachFlag(newApp(), func(command string, f cli.Flag) {
		name := "--" + f.Names()[0]
		envs := flagEnvVars(f)
		for _, e := range envs {
			if !strings.HasPrefix(e, "ETALAKE_") {
				t.Errorf("%s %s reads %s: want an ETALAKE_* name", command, name, e)
			}
		}
		// A row that says "every flag" says it exactly: the flags that
		// do read a variable are named in it ("every flag but …").
		if len(envs) > 0 && exempt[command+" every flag"] && !reads[command+" "+name] {
			t.Errorf("README.md's \"Settings from the environment\" says no flag of %s reads a variable, but %s reads %s: name it in the row (every flag but …)", command, name, envs[0])
		}
		if len(envs) == 0 && reads[command+" "+name] {
			t.Errorf("README.md's \"Settings from the environment\" says %s %s reads a variable, but it reads none", command, name)
		}
		if len(envs) > 0 {
			return
		}
		for _, key := range []string{command + " " + name, command + " every flag"} {
			if exempt[key] {
				used[key] = true
				return
			}
		}
		t.Errorf("etalake %s %s reads no ETALAKE_* variable: give it one (EnvVars), or add a row to README.md's \"Settings from the environment\" saying why it has none", command, name)
	})
	for key := range exempt {
		if !used[key] {
			t.Errorf("README.md's \"Settings from the environment\" lists %q, but no such flag lacks a variable: remove the row", key)
		}
	}
}

// TestEveryVariableTheREADMENamesExists: a variable the README tells an
// operator to set is one etalake reads (variables: every flag's, and
// ETALAKE_API_KEY, which no flag reads by design), or a switch of the
// test tier that a test reads (os.Getenv in a _test.go file).
func TestEveryVariableTheREADMENamesExists(t *testing.T) {
	known := map[string]bool{}
	for _, v := range variables(newApp()) {
		known[v] = true
	}
	switches := testSwitches(t)
	named := regexp.MustCompile(`ETALAKE_[A-Z0-9_]*[A-Z0-9]`).FindAllString(docsText(t), -1)
	slices.Sort(named)
	for _, v := range slices.Compact(named) {
		if !known[v] && !switches[v] {
			t.Errorf("README.md names %s, which no flag, no code and no test reads", v)
		}
	}
}

// TestEveryVariableTheCodeNamesIsListed: a variable the command line
// names (a flag's, a message's, one read before the flags are parsed) is
// in variables, the one list the tests clear and the README is checked
// against: none is read behind its back.
func TestEveryVariableTheCodeNamesIsListed(t *testing.T) {
	listed := map[string]bool{}
	for _, v := range variables(newApp()) {
		if !strings.HasPrefix(v, "ETALAKE_") {
			t.Errorf("variables lists %s: want an ETALAKE_* name", v)
		}
		listed[v] = true
	}
	if !listed[envAPIKey] || !listed["ETALAKE_WAREHOUSE"] || !listed["ETALAKE_WEBHOOK_SECRET_FILE"] {
		t.Fatalf("variables lists %d names, without the key's, the warehouse's or a subcommand's: it misses some", len(listed))
	}
	literal := regexp.MustCompile(`"(ETALAKE_[A-Z0-9_]*[A-Z0-9])"`)
	files, err := filepath.Glob("cli/*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range literal.FindAllStringSubmatch(string(b), -1) {
			if !listed[m[1]] && !slices.Contains(otherVariables, m[1]) { // otherVariables: those the tests read, which etalake does not
				t.Errorf("%s names %s, which variables does not list: read it with a flag (EnvVars), or add it to variables", path, m[1])
			}
		}
	}
}

// testSwitches are the ETALAKE_* switches of the test tier: the names a
// test of any package reads with os.Getenv, directly or through a
// constant (slowtest.Env).
func testSwitches(t *testing.T) map[string]bool {
	t.Helper()
	switches := map[string]bool{slowtest.Env: true}
	read := regexp.MustCompile(`Getenv\("(ETALAKE_[A-Z0-9_]*[A-Z0-9])"\)`)
	constant := regexp.MustCompile(`(\w+)\s*=\s*"(ETALAKE_[A-Z0-9_]*[A-Z0-9])"`)
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return err
		}
		b, err := os.ReadFile(path)
		for _, m := range read.FindAllStringSubmatch(string(b), -1) {
			switches[m[1]] = true
		}
		for _, m := range constant.FindAllStringSubmatch(string(b), -1) {
			if strings.Contains(string(b), "Getenv("+m[1]+")") {
				switches[m[2]] = true
			}
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return switches
}

// envExemptions reads the README's table of flags without a variable:
// "COMMAND --FLAG" or "COMMAND every flag" for each command and flag of a
// row that gives a reason.
func envExemptions(t *testing.T) (exempt, reads map[string]bool) {
	t.Helper()
	rows := mdTableRows(mdSection(t, docsText(t), "Settings from the environment"))
	if len(rows) == 0 {
		t.Fatal("README.md's \"Settings from the environment\" has no table of flags without a variable")
	}
	code := regexp.MustCompile("`([^`]+)`")
	exempt, reads = map[string]bool{}, map[string]bool{}
	for _, r := range rows {
		if len(r) != 3 || strings.TrimSpace(r[2]) == "" {
			t.Fatalf("row %q: want | commands | flags | why |, the why said", r)
		}
		var flags, but []string
		if rest, ok := strings.CutPrefix(r[1], "every flag"); ok {
			flags = []string{"every flag"}
			for _, m := range code.FindAllStringSubmatch(rest, -1) {
				but = append(but, m[1])
			}
		} else {
			for _, m := range code.FindAllStringSubmatch(r[1], -1) {
				flags = append(flags, m[1])
			}
		}
		for _, c := range code.FindAllStringSubmatch(r[0], -1) {
			for _, f := range flags {
				exempt[c[1]+" "+f] = true
			}
			for _, f := range but {
				reads[c[1]+" "+f] = true
			}
		}
	}
	return exempt, reads
}

// forEachFlag calls fn for every visible flag of every command and
// subcommand of app, with the command's full name ("track add"). Hidden
// flags (--api-key, which exists only to be refused) and --help are not
// settings.
func forEachFlag(app *cli.App, fn func(command string, f cli.Flag)) {
	var walk func(prefix string, cmds []*cli.Command)
	walk = func(prefix string, cmds []*cli.Command) {
		for _, c := range cmds {
			name := strings.TrimSpace(prefix + " " + c.Name)
			for _, f := range c.Flags {
				if v, ok := f.(cli.VisibleFlag); (ok && !v.IsVisible()) || slices.Contains(f.Names(), "help") {
					continue
				}
				fn(name, f)
			}
			walk(name, c.Subcommands)
		}
	}
	for _, f := range app.Flags {
		if !slices.Contains(f.Names(), "help") && !slices.Contains(f.Names(), "version") {
			fn("(every command)", f)
		}
	}
	walk("", app.Commands)
}

// flagEnvVars returns the variables a flag reads.
func flagEnvVars(f cli.Flag) []string {
	if e, ok := f.(interface{ GetEnvVars() []string }); ok {
		return e.GetEnvVars()
	}
	return nil
}

// TestGraceIsASettingOfTheEnvironment: ETALAKE_GRACE, the one setting
// that had no variable, is read, and a bad value is refused naming it.
func TestGraceIsASettingOfTheEnvironment(t *testing.T) {
	code, _, stderr := run(t, map[string]string{"ETALAKE_GRACE": "-1h"}, "run", "--dry-run", "--warehouse", t.TempDir())
	if code != exitUsage || !strings.Contains(stderr, "ETALAKE_GRACE") {
		t.Errorf("ETALAKE_GRACE=-1h etalake run: exit %d, %q; want exit 2 naming ETALAKE_GRACE", code, stderr)
	}
	code, _, stderr = run(t, map[string]string{"ETALAKE_GRACE": "-1h"}, "run", "--grace", "1h", "--dry-run", "--warehouse", t.TempDir())
	if strings.Contains(stderr, "ETALAKE_GRACE") {
		t.Errorf("--grace 1h with ETALAKE_GRACE=-1h: exit %d, %q; want the flag to win over the variable", code, stderr)
	}
}
