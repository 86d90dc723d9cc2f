package cli

import (
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"
)

// The categories every command's flags are grouped under in its help,
// in the order shown: what to ask, where and how, within which limits,
// how often, into which warehouse, and what is said.
const (
	catSelection = "Selection"
	catService   = "Service"
	catCredits   = "Credits and rate"
	catRefresh   = "Refresh"
	catWarehouse = "Warehouse and lake"
	catWebhooks  = "Webhooks"
	catWorld     = "Simulated world"
	catOutput    = "Output and logs"
)

// categoryOrder is the order of the categories in a help.
func categoryOrder() []string {
	return []string{catSelection, catService, catCredits, catRefresh, catWarehouse, catWebhooks, catWorld, catOutput}
}

// The help's width: the terminal's, else COLUMNS, else 80, and never
// wider than maxHelpWidth, past which prose is hard to read.
const (
	defaultHelpWidth = 80
	minHelpWidth     = 40
	maxHelpWidth     = 100
)

// helpWidth is the width to wrap a help written to w at.
func helpWidth(w io.Writer) int {
	n := 0
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		n, _, _ = term.GetSize(int(f.Fd()))
	}
	if n <= 0 {
		n, _ = strconv.Atoi(os.Getenv("COLUMNS"))
	}
	if n <= 0 {
		return defaultHelpWidth
	}
	return min(max(n, minHelpWidth), maxHelpWidth)
}

// useHelpPrinter makes printHelp cli's HelpPrinter, once: cli v2 has no
// help printer of an app's own, and apps made at once (tests in
// parallel) must not race to set it.
var useHelpPrinter sync.Once

// printHelp is cli's HelpPrinter: cli's templates and ours (helpTemplates),
// their text wrapped at the width of the writer (helpWidth).
func printHelp(out io.Writer, templ string, data any) {
	width := helpWidth(out)
	cli.HelpPrinterCustom(out, templ, data, map[string]any{
		"wrap":        func(s string, offset int) string { return wrapText(s, offset, width) },
		"flagHelp":    func(flags []cli.Flag) string { return flagHelp(flags, width) },
		"exitCodes":   func() string { return exitCodesHelp },
		"hasCommands": hasCommands,
	})
}

// Our templates: cli's, but for the usage line (wrapped), the flags
// (grouped by category, in the order defined, wrapped: flagHelp) and the
// examples, added per command (withExamples).
const (
	helpUsageTemplate = `{{if .UsageText}}{{wrap .UsageText 3}}{{else}}{{wrap (printf "%s%s%s" .HelpName (or (and .VisibleFlags " [command options]") "") (or (and .ArgsUsage (printf " %s" .ArgsUsage)) "")) 3}}{{end}}`

	commandHelpTemplate = `NAME:
   {{template "helpNameTemplate" .}}

USAGE:
   ` + helpUsageTemplate + `{{if .Description}}

DESCRIPTION:
   {{wrap .Description 3}}{{end}}{{if hasCommands .}}

COMMANDS:{{template "visibleCommandTemplate" .}}{{end}}{{if .VisibleFlags}}

OPTIONS:{{flagHelp .VisibleFlags}}{{end}}
`

	appHelpTemplate = `NAME:
   {{template "helpNameTemplate" .}}

USAGE:
   {{.HelpName}} command [command options]{{if .Version}}

VERSION:
   {{.Version}}{{end}}{{if .Description}}

DESCRIPTION:
   {{wrap .Description 3}}{{end}}

COMMANDS:{{template "visibleCommandTemplate" .}}

GLOBAL OPTIONS:{{flagHelp .VisibleFlags}}

{{wrap exitCodes 0}}
`
)

// flagHelp renders flags by category (categoryOrder; a flag of none,
// --help, last), each as its names and value, then its usage in a
// column of its own, wrapped at width.
func flagHelp(flags []cli.Flag, width int) string {
	byCat := map[string][]cli.Flag{}
	for _, f := range flags {
		cat := ""
		if c, ok := f.(cli.CategorizableFlag); ok {
			cat = c.GetCategory()
		}
		byCat[cat] = append(byCat[cat], f)
	}
	// The names' column is as wide as the widest name, up to a third of
	// the width: a longer name has its usage on the next line.
	const indent, gap = 5, 2
	maxName := min(24, width/3)
	col := 0
	for _, f := range flags {
		name, _ := flagParts(f)
		col = max(col, min(utf8.RuneCountInString(name), maxName))
	}
	var lines []string
	for _, cat := range append(categoryOrder(), "") {
		if len(byCat[cat]) == 0 {
			continue
		}
		lines = append(lines, "")
		if cat != "" {
			lines = append(lines, "   "+cat+":")
		}
		pad := indent + col + gap
		for _, f := range byCat[cat] {
			name, usage := flagParts(f)
			line := strings.Repeat(" ", indent) + name
			if n := utf8.RuneCountInString(name); n > col {
				lines = append(lines, line)
				line = strings.Repeat(" ", pad)
			} else {
				line += strings.Repeat(" ", col-n+gap)
			}
			lines = append(lines, line+wrapText(usage, pad, width))
		}
	}
	return "\n" + strings.Join(lines, "\n")
}

// hasCommands reports whether cmd has subcommands of its own: cli gives
// every command a help subcommand.
func hasCommands(cmd *cli.Command) bool {
	return slices.ContainsFunc(cmd.VisibleCommands(), func(c *cli.Command) bool { return c.Name != "help" })
}

// flagParts splits cli's rendering of a flag, "--name value<TAB>usage
// (default: …) [$VAR]", into its two columns.
func flagParts(f cli.Flag) (name, usage string) {
	name, usage, _ = strings.Cut(cli.FlagStringer(f), "\t")
	return strings.TrimSpace(name), strings.TrimSpace(usage)
}
