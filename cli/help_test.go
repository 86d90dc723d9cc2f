package cli

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/urfave/cli/v2"
)

// commandPaths lists every command of the app as typed after etalake,
// subcommands and help subcommands too; "" is etalake itself.
func commandPaths(app *cli.App) [][]string {
	paths := [][]string{nil}
	var walk func(parent []string, cmds []*cli.Command)
	walk = func(parent []string, cmds []*cli.Command) {
		for _, c := range cmds {
			p := append(slices.Clip(parent), c.Name)
			paths = append(paths, p)
			walk(p, c.Subcommands)
		}
	}
	walk(nil, app.Commands)
	return paths
}

// helpOf is the help of the command at path, as --help prints it with
// COLUMNS set to width (no terminal: the tests write to a buffer).
func helpOf(t *testing.T, path []string, width int) string {
	t.Helper()
	code, out, errOut := run(t, map[string]string{"COLUMNS": strconv.Itoa(width)}, append(slices.Clip(path), "--help")...)
	if code != exitOK {
		t.Fatalf("etalake %s --help: exit %d: %s", strings.Join(path, " "), code, errOut)
	}
	return out
}

// Every help fits the terminal: at 80 and at 100 columns, no line of any
// command's help is wider (issue 44: run --help had lines of over 600).
func TestHelpFitsTheTerminal(t *testing.T) {
	for _, width := range []int{80, 100} {
		for _, path := range commandPaths(newApp()) {
			for i, line := range strings.Split(helpOf(t, path, width), "\n") {
				if n := utf8.RuneCountInString(line); n > width {
					t.Errorf("etalake %s --help at %d columns, line %d is %d wide: %q", strings.Join(path, " "), width, i+1, n, line)
				}
			}
		}
	}
}

// Every visible flag of every command is in one of the categories its
// help groups flags under, and run's help shows them in their order.
func TestEveryFlagHasACategory(t *testing.T) {
	app := newApp()
	var walk func(parent string, cmds []*cli.Command)
	walk = func(parent string, cmds []*cli.Command) {
		for _, c := range cmds {
			path := strings.TrimSpace(parent + " " + c.Name)
			for _, f := range c.VisibleFlags() {
				cat := ""
				if cf, ok := f.(cli.CategorizableFlag); ok {
					cat = cf.GetCategory()
				}
				if f.Names()[0] != cli.HelpFlag.Names()[0] && !slices.Contains(categoryOrder(), cat) {
					t.Errorf("etalake %s --%s: category %q, want one of %q", path, f.Names()[0], cat, categoryOrder())
				}
			}
			walk(path, c.Subcommands)
		}
	}
	walk("", app.Commands)

	help := helpOf(t, []string{"run"}, 100)
	at := -1
	for _, cat := range []string{catSelection, catService, catCredits, catRefresh, catWarehouse, catOutput} {
		i := strings.Index(help, "\n   "+cat+":\n")
		if i < at {
			t.Errorf("run --help: category %q missing or out of order", cat)
		}
		at = i
	}
}

// Every command's help ends with examples, and every example is a
// command line etalake takes: the command it names exists and takes
// every flag and argument given (each is parsed by the app, its
// commands' actions made to do nothing).
func TestEveryHelpHasExamplesThatParse(t *testing.T) {
	for _, path := range commandPaths(newApp()) {
		name := strings.TrimSpace("etalake " + strings.Join(path, " "))
		ex := helpExamples(helpOf(t, path, 100))
		if len(ex) == 0 {
			t.Errorf("%s --help has no example", name)
		}
		for _, e := range ex {
			argv := shellWords(t, e)
			if len(argv) == 0 || argv[0] != "etalake" {
				t.Errorf("%s --help: example %q does not run etalake", name, e)
				continue
			}
			app := newApp()
			for _, c := range app.Commands {
				doNothing(c)
			}
			if code, _, errOut := runWith(t, app, nil, argv[1:]...); code != exitOK {
				t.Errorf("%s --help: example %q: exit %d: %s", name, e, code, errOut)
			}
		}
	}
	// No example is kept for a command that does not exist.
	paths := map[string]bool{}
	for _, p := range commandPaths(newApp()) {
		paths[strings.Join(p, " ")] = true
	}
	for key := range commandExamples {
		if !paths[key] {
			t.Errorf("examples of %q: no such command", key)
		}
	}
}

// doNothing makes cmd and its subcommands parse their command line and
// do nothing, but for the help commands, which only print.
func doNothing(cmd *cli.Command) {
	if cmd.Name != "help" && (cmd.Action != nil || len(cmd.Subcommands) == 0) {
		cmd.Action = func(*cli.Context) error { return nil }
	}
	for _, sub := range cmd.Subcommands {
		doNothing(sub)
	}
}

// helpExamples are the examples of a help's EXAMPLES section, a line
// ending in a backslash joined to the next.
func helpExamples(help string) []string {
	_, section, ok := strings.Cut(help, "\nEXAMPLES:\n")
	if !ok {
		return nil
	}
	var out []string
	for _, line := range strings.Split(section, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "":
		case len(out) > 0 && strings.HasSuffix(out[len(out)-1], `\`):
			out[len(out)-1] = strings.TrimSuffix(out[len(out)-1], `\`) + line
		default:
			out = append(out, line)
		}
	}
	return out
}

// shellWords splits a command line as a POSIX shell does its words,
// quotes and all, up to a redirection.
func shellWords(t *testing.T, line string) []string {
	t.Helper()
	var words []string
	var w strings.Builder
	inWord := false
	var quote rune
	for _, r := range line {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			w.WriteRune(r)
		case r == '"' || r == '\'':
			quote, inWord = r, true
		case r == ' ':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		case r == '>' || r == '|':
			if quote == 0 {
				return words
			}
		default:
			w.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		t.Fatalf("%q: a quote left open", line)
	}
	if inWord {
		words = append(words, w.String())
	}
	return words
}
