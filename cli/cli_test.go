package cli

import (
	"bytes"
	"runtime/debug"
	"slices"
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
		{[]string{"track", "ad", "MSCU1234566"}, exitUsage, "", `track has no command "ad". Did you mean "add"?`},
		{[]string{"sim", "serv"}, exitUsage, "", `sim has no command "serv". Did you mean "serve"?`},
		{[]string{"track", "--foo"}, exitUsage, "", "unknown flag --foo (etalake track --help lists them)"},
		{[]string{"track"}, exitOK, "list     list the tracked set", ""},
		// A hint names a subcommand by its whole path, the command a user
		// can type: etalake track add, never etalake add.
		{[]string{"track", "add", "MSCU1234566", "--lock-timeout", "5s"}, exitUsage, "", "flags go first, as in etalake track add --lock-timeout … ARGS"},
		{[]string{"track", "add", "--zzzzzzzzzzzzzzzz"}, exitUsage, "", "unknown flag --zzzzzzzzzzzzzzzz (etalake track add --help lists them)"},
		{[]string{"lake", "status", "--zzzzzzzzzzzzzzzz"}, exitUsage, "", "(etalake lake status --help lists them)"},
		// A help topic that is no command is a usage error naming the
		// nearest, under a command as at the top; a topic that is one
		// shows its help.
		{[]string{"track", "help", "nope"}, exitUsage, "", `track has no command "nope"`},
		{[]string{"track", "help", "lst"}, exitUsage, "", `track has no command "lst". Did you mean "list"?`},
		{[]string{"track", "help", "add"}, exitOK, "etalake track add - track shipments", ""},
		{[]string{"lake", "help"}, exitOK, "etalake lake - ", ""},
		// A command's flag before the command belongs after it: the
		// message shows the line put right, not --help.
		{[]string{"--log-format", "json", "run"}, exitUsage, "", "--log-format goes after the command, as in etalake run --log-format json … (etalake run --help lists its flags)"},
		{[]string{"--warehouse", "wh", "lake", "pull"}, exitUsage, "", "as in etalake lake pull --warehouse wh …"},
		{[]string{"--wat", "run"}, exitUsage, "", "unknown flag --wat (etalake --help lists them)"},
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
	// The test binary of package cli records no dependencies (a binary of
	// package main does: etalake names duckdb-go's version there).
	info, _ := debug.ReadBuildInfo()
	deps := info != nil && slices.ContainsFunc(info.Deps, func(m *debug.Module) bool { return m.Path == "github.com/duckdb/duckdb-go/v2" })
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "etalake ") || !strings.Contains(lines[0], "go1.") ||
		!strings.HasPrefix(lines[1], "duckdb  v1.") || deps && !strings.Contains(lines[1], "duckdb-go v2.") {
		t.Errorf("--version printed\n%s\nwant etalake's version with Go's, and DuckDB's with the duckdb-go module's", out.String())
	}
}

// Every command that has subcommands refuses one it does not have, with
// the usage code, whatever the command: a new one cannot forget to.
func TestEveryUnknownSubcommandIsAUsageError(t *testing.T) {
	var walk func(path []string, cmds []*cli.Command)
	n := 0
	walk = func(path []string, cmds []*cli.Command) {
		for _, cmd := range cmds {
			if len(cmd.Subcommands) == 0 {
				continue
			}
			args := append(append([]string{}, path...), cmd.Name)
			n++
			code, _, errs := run(t, nil, append(args, "nosuchthing")...)
			if code != exitUsage || !strings.Contains(errs, `has no command "nosuchthing"`) {
				t.Errorf("etalake %s nosuchthing: exit %d (want %d)\n%s", strings.Join(args, " "), code, exitUsage, errs)
			}
			walk(args, cmd.Subcommands)
		}
	}
	walk(nil, newApp().Commands)
	if n < 2 {
		t.Errorf("%d commands with subcommands, want track and sim at least", n)
	}
}
