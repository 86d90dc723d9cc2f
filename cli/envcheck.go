package cli

import (
	"os"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
	"github.com/xrash/smetrics"
)

// otherVariables are the ETALAKE_* variables that no flag reads and that
// are still read, by etalake (the key) or by its tests and benchmarks
// and the processes they start (docs/testing.md: the test tiers). Every other
// ETALAKE_* variable in the environment changes nothing, and is said at
// start (warnUnknownVariables): ETALAKE_DRY_RUN=1 misspelt or
// wished for would otherwise let a job run for real unnoticed. A test
// holds this list to every ETALAKE_* name the code spells.
var otherVariables = []string{
	envAPIKey,
	"ETALAKE_SLOW_TESTS", "ETALAKE_TRUTH_SEEDS", "ETALAKE_MEASURE_CATALOG", "ETALAKE_LOAD_TEST_HELPER",
	"ETALAKE_KILL_TRIALS", "ETALAKE_KILL_SEED", "ETALAKE_CHILD_URL", "ETALAKE_CHILD_DIR",
	"ETALAKE_COORD_CHILD_SIM", "ETALAKE_COORD_CHILD_DB",
	"ETALAKE_FLEET_WORKERS", "ETALAKE_FLEET_WORKER", "ETALAKE_FLEET_SIM", "ETALAKE_FLEET_REQUESTS", "ETALAKE_FLEET_KEY", "ETALAKE_FLEET_DB",
}

// testVariablePrefix starts the variables a test sets for the child
// process it starts (ETALAKE_TEST_AS_MAIN, ETALAKE_TEST_KILL, …).
const testVariablePrefix = "ETALAKE_TEST_"

// knownVariables is every ETALAKE_* variable something reads: the
// flags' (variables) and otherVariables.
func knownVariables(app *cli.App) []string {
	known := append(variables(app), otherVariables...)
	slices.Sort(known)
	return slices.Compact(known)
}

// unknownVariables lists, in environ's order, the ETALAKE_* variables of
// environ (os.Environ's "NAME=value") that nothing reads, each with the
// nearest known name. Only names are read: a value may be a key.
func unknownVariables(app *cli.App, environ []string) (unknown, nearest []string) {
	known := knownVariables(app)
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, "ETALAKE_") || strings.HasPrefix(name, testVariablePrefix) || slices.Contains(known, name) {
			continue
		}
		best, score := "", 0.0
		for _, k := range known { // the prefix every name shares says nothing of which is nearest
			if s := smetrics.JaroWinkler(strings.TrimPrefix(name, "ETALAKE_"), strings.TrimPrefix(k, "ETALAKE_"), 0.7, 4); s > score {
				best, score = k, s
			}
		}
		unknown, nearest = append(unknown, name), append(nearest, best)
	}
	return unknown, nearest
}

// warnUnknownVariables warns, through the command's logger, of every
// ETALAKE_* variable of the environment that nothing reads, naming the
// nearest known one, and, when the name is a flag's that has no variable
// on purpose (--dry-run), saying so. It never says a value.
func warnUnknownVariables(c *cli.Context) {
	unknown, nearest := unknownVariables(c.App, os.Environ())
	if len(unknown) == 0 {
		return
	}
	log, err := newLogger(c)
	if err != nil {
		return // the command says what is wrong with its log flags
	}
	for i, name := range unknown {
		flag := strings.ReplaceAll(strings.ToLower(strings.TrimPrefix(name, "ETALAKE_")), "_", "-")
		attrs := []any{"variable", name, "did_you_mean", nearest[i]}
		if commandFlag(c.App.Commands, flag) {
			attrs = append(attrs, "note", "--"+flag+" reads no variable on purpose: give it on the command line (docs/settings.md: Settings from the environment)")
		}
		log.Warn("environment: a variable nothing reads is set, and changes nothing", attrs...)
	}
}

// withVariableCheck makes every command that runs (one without
// subcommands) warn of the variables nothing reads before it starts.
func withVariableCheck(cmd *cli.Command) {
	for _, sub := range cmd.Subcommands {
		withVariableCheck(sub)
	}
	if len(cmd.Subcommands) > 0 || cmd.Name == "help" {
		return
	}
	before := cmd.Before
	cmd.Before = func(c *cli.Context) error {
		warnUnknownVariables(c)
		if before != nil {
			return before(c)
		}
		return nil
	}
}
