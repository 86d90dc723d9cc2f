package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// A typo in a crontab or a unit file must not look like a partial success
// (3) or a success (0): it is a usage error (2) that names the nearest
// command or flag; asking for help is a success.
func TestTyposAreUsageErrorsAndHelpSucceeds(t *testing.T) {
	cases := []struct {
		args     []string
		code     int
		out, err string // substrings of stdout and stderr
	}{
		{[]string{"runn"}, exitUsage, "", `unknown command "runn". Did you mean "run"?`},
		{[]string{"run", "--prots", "NLRTM"}, exitUsage, "", "unknown flag --prots; did you mean --ports?"},
		{[]string{"track", "add", "--shipmnts", "x.csv"}, exitUsage, "", "did you mean --shipments?"},
		{[]string{"help"}, exitOK, "COMMANDS:", ""},
		{[]string{"help", "run"}, exitOK, "etalake run - the nightly job", ""},
		{[]string{"help", "track", "add"}, exitOK, "etalake track add", ""},
		{[]string{"help", "rnu"}, exitUsage, "", `no command "rnu". Did you mean "run"?`},
		{[]string{"help", "track", "ad"}, exitUsage, "", `track has no command "ad"`},
		{nil, exitOK, "COMMANDS:", ""},
		{[]string{"--help"}, exitOK, "EXIT CODES", ""},
		{[]string{"-h"}, exitOK, "COMMANDS:", ""},
		{[]string{"run", "--help"}, exitOK, "etalake run - the nightly job", ""},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, out, errs := run(t, nil, tc.args...)
			if code != tc.code || !strings.Contains(out, tc.out) || !strings.Contains(errs, tc.err) {
				t.Errorf("exit %d (want %d)\nstdout: %.300s\nstderr: %s\nwant stdout with %q, stderr with %q", code, tc.code, out, errs, tc.out, tc.err)
			}
		})
	}
}

func TestVersionNamesTheBuildAndDuckDB(t *testing.T) {
	var out bytes.Buffer
	app := newApp()
	app.Writer = &out
	c := cli.NewContext(app, nil, nil)
	printVersion(c)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "etalake ") || !strings.Contains(lines[0], "go1.") ||
		!strings.HasPrefix(lines[1], "duckdb  v1.") || !strings.Contains(lines[1], "duckdb-go v2.") {
		t.Errorf("--version printed\n%s\nwant etalake's version with Go's, and DuckDB's with the duckdb-go module's", out.String())
	}
}
