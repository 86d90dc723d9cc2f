package cli

import (
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
)

// commandExamples are the invocations each command's help ends with, by the
// command's path ("" is etalake's own help). A long one is broken as a
// shell breaks it (" \" then the next line). Every command has some, and
// every one parses as the command's (help_test.go). The help
// subcommands of the commands that have subcommands get theirs from
// withExamples.
var commandExamples = map[string][]string{
	"": {
		"etalake demo",
		"etalake help run",
	},
	"demo": {
		"etalake demo",
		"etalake demo --days 7 --shipments 50 --warehouse ./small-demo",
		"etalake demo --schedule-api dcsa-cs-1.0 --page-size 20",
	},
	"run": {
		"etalake run --api-key-file /etc/etalake/key --warehouse /srv/etalake",
		"etalake run --dry-run --ports NLRTM,DEHAM --date 2026-01-05",
		"etalake run --max-credits 500 --log-format json",
	},
	"backfill": {
		"etalake backfill --date 2026-01-05 --ports NLRTM --yes",
		"etalake backfill --date 2026-01-05 --reask port:NLRTM",
	},
	"track": {
		"etalake track add MSCU1234566",
		"etalake track list",
	},
	"track add": {
		"etalake track add MSCU1234566 MEDUAB123456:BL:MSCU",
		"etalake track add --shipments shipments.csv",
	},
	"track rm": {
		"etalake track rm MSCU1234566",
	},
	"track list": {
		"etalake track list",
		"etalake track list --all --warehouse /srv/etalake",
	},
	"credits": {
		"etalake credits",
		"etalake credits --format json",
	},
	"import": {
		"etalake import ./responses",
		"etalake import --observed-at 2026-01-05 ./archive/2026-01-05.ndjson",
	},
	"replay": {
		"etalake replay",
		"etalake replay --from 2026-01-01 --to 2026-01-31",
	},
	"sql": {
		`etalake sql "SELECT * FROM shipments LIMIT 5"`,
		`etalake sql --format csv "SELECT * FROM eta_observations" > eta.csv`,
		`etalake sql "SELECT table_name, comment FROM duckdb_tables()"`,
	},
	"report": {
		"etalake report",
		"etalake report --html report.html",
	},
	"sim": {
		"etalake sim serve --addr 127.0.0.1:8080",
		"etalake sim world --list ports",
	},
	"sim serve": {
		"etalake sim serve --addr 127.0.0.1:8080",
		"etalake sim serve --error-rate 0.05 --schedule-api dcsa-cs-1.0",
	},
	"sim world": {
		"etalake sim world --list shipments > shipments.csv",
		"etalake sim world --list truth --seed 7",
	},
	"sim responses": {
		"etalake sim responses --out ./responses --days 7",
	},
	"webhook": {
		"etalake webhook serve --warehouse /srv/etalake --secret-file whsec.txt",
	},
	"webhook serve": {
		"etalake webhook serve --warehouse /srv/etalake --secret-file whsec.txt",
		"etalake webhook serve --addr 127.0.0.1:8088 --warehouse /srv/etalake \\\n" +
			"  --secret-file whsec.txt",
	},
	"lake": {
		lakeExample("status"),
	},
	"lake status": {
		lakeExample("status"),
	},
	"lake maintain": {
		lakeExample("maintain") + " --keep-days 30",
	},
	"lake mend": {
		lakeExample("mend"),
	},
	"lake pull": {
		lakeExample("pull") + " --warehouse ./pulled",
	},
	"help": {
		"etalake help run",
		"etalake help track add",
	},
}

// lakeExample is the lake command name given a lake.
func lakeExample(name string) string {
	return "etalake lake " + name + " --lake-catalog sqlite:///lake.db \\\n  --lake-warehouse file:///srv/lake"
}

// withExamples gives cmd, at path, and its subcommands the help template
// that ends with their examples.
func withExamples(cmd *cli.Command, examples map[string][]string, path ...string) {
	path = append(slices.Clip(path), cmd.Name)
	ex := examples[strings.Join(path, " ")]
	if cmd.Name == "help" && len(path) > 1 {
		ex = subcommandHelpExamples(path[:len(path)-1])
	}
	cmd.CustomHelpTemplate = commandHelpTemplate + examplesSection(ex)
	for _, sub := range cmd.Subcommands {
		withExamples(sub, examples, path...)
	}
}

// subcommandHelpExamples are the examples of the help subcommand of the
// command at parent.
func subcommandHelpExamples(parent []string) []string {
	p := strings.Join(parent, " ")
	return []string{"etalake " + p + " help", "etalake help " + p}
}

// examplesSection is the help's EXAMPLES section of ex (none when ex is
// empty), as literal text of a template.
func examplesSection(ex []string) string {
	if len(ex) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\nEXAMPLES:\n")
	for _, e := range ex {
		b.WriteString("   " + strings.ReplaceAll(e, "\n", "\n   ") + "\n")
	}
	return b.String()
}
