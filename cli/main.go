package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/etalake/etalake/jobs"
	"github.com/etalake/etalake/load"
)

// version is the build's, given to Main by package main (set there at
// build time with -ldflags "-X main.version=…").
var version = "dev"

// Exit codes: defined here only, documented in --help (exitCodesHelp) and
// docs/operations.md, mapped from how a job ended (exitCodes) and recorded in
// etl_runs.exit_code.
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2 // usage, configuration (a product's URL a job needs unset), authentication (401)
	exitPartial = 3 // cap, quota, failures after retries, dead letters
	// exitBusy is sysexits' EX_TEMPFAIL: another job held the warehouse
	// past --lock-timeout; trying again later is the remedy.
	exitBusy = 75
	// A job stopped by a signal exits as a shell says a process killed by
	// it did: 128 + the signal's number.
	exitInterrupted = 128 + 2  // SIGINT
	exitTerminated  = 128 + 15 // SIGTERM
)

const exitCodesHelp = `EXIT CODES:
   0  ok: everything asked was answered and loaded
   1  failure: nothing more could be done (the warehouse could not be written, a declined backfill, …)
   2  usage, configuration or authentication (401) error; a job that needs a product whose URL is
      not set (ETALAKE_SCHEDULE_URL, ETALAKE_TRACKING_URL) stops with it before any request, as do
      plain http:// to another machine (unless ETALAKE_ALLOW_INSECURE_HTTP) and a coordination
      database that does not exist (ETALAKE_COORDINATION); a product whose URL or profile is wrong
      (the provider answered as no server of its contract does: a 404 from a DCSA provider or from
      the always-there current period, a web page) or that cannot be asked (a redirect refused, a
      TLS certificate not trusted: SSL_CERT_FILE) stops after one or two requests
   3  partial: a credit cap or quota was reached, requests failed after retries, answers stayed
      broken in transfer, responses were dead-lettered (kept in raw_responses, see dead_letters)
      or input rows were skipped; everything landed is kept; etl_runs.shortfalls counts why
  75  busy: another job was writing the warehouse for longer than --lock-timeout; nothing was done
 130  interrupted (SIGINT), 143 terminated (SIGTERM): the job stopped, everything landed is kept, and
      etl_runs says so (partial, stop_reason "stopped by SIGINT" or "stopped by SIGTERM")`

// exitCodes maps how a job ended (jobs.Verdict) to its exit code: the
// process exits with it, and the jobs record it in etl_runs.exit_code
// (their options' ExitCodes).
var exitCodes = jobs.ExitCodes{
	jobs.VerdictOK:      exitOK,
	jobs.VerdictFailed:  exitFailure,
	jobs.VerdictRefused: exitUsage,
	jobs.VerdictPartial: exitPartial,
	jobs.VerdictBusy:    exitBusy,

	jobs.VerdictInterrupted: exitInterrupted,
	jobs.VerdictTerminated:  exitTerminated,
}

// Main runs etalake's command line, os.Args, and returns its exit code.
// v is the build's version; "dev" when the build set none.
func Main(v string) int {
	version = v
	cli.VersionPrinter = printVersion
	ctx, stop := stopOnSignals(context.Background())
	err := jobs.StoppedBy(ctx, runApp(ctx, newApp(), os.Args))
	stop()
	writeExit(os.Stderr, os.Args, err)
	return exitCode(err)
}

// stopOnSignals is ctx cancelled by the first SIGINT or SIGTERM, its
// cause the signal (jobs.Stopped): the job ends saying which, with its
// exit code. A second signal is caught as well, and changes nothing: the
// job is already ending, keeping what it landed. stop releases the
// signals and waits for the goroutine that watches them.
func stopOnSignals(parent context.Context) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(parent)
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for s := range sigs {
			cancel(&jobs.Stopped{Signal: s})
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(sigs)
		<-done
		cancel(nil)
	}
}

func newApp() *cli.App {
	app := &cli.App{
		Name:    "etalake",
		Usage:   "a warehouse of shipping ETAs from a rate-limited, credit-metered API",
		Version: version,
		Description: "etalake extracts port schedules and container tracking from the Shipping Schedule and\n" +
			"Container ETA Service within its limits (10 requests per 10 s per key, one credit per\n" +
			"successful call), lands every response, and builds a DuckDB + Parquet warehouse.\n\n" +
			"The API key is read from ETALAKE_API_KEY or --api-key-file, never from the command line.\n" +
			"Every setting can also be set from the ETALAKE_* variable shown next to its flag (the flags\n" +
			"without one say what one invocation does: docs/settings.md, \"Settings from the environment\").",
		// Our own help command: cli's exits 3 ("partial") on an unknown
		// topic, which a scheduler would count as a success.
		HideHelpCommand:       true,
		CustomAppHelpTemplate: appHelpTemplate,
		OnUsageError:          usageError,
		Action:                unknownCommand,
		// cli adds --help only when it adds its own help command.
		Flags: []cli.Flag{cli.HelpFlag},
		// main maps errors to exit codes; cli must never exit by itself.
		ExitErrHandler: func(*cli.Context, error) {},
		Commands: []*cli.Command{
			demoCommand(),
			runCommand(),
			backfillCommand(),
			trackCommand(),
			creditsCommand(),
			importCommand(),
			replayCommand(),
			sqlCommand(),
			reportCommand(),
			simCommand(),
			webhookCommand(),
			lakeCommand(),
			helpCommand(),
		},
	}
	examples := commandExamples
	app.CustomAppHelpTemplate += examplesSection(examples[""])
	for _, cmd := range app.Commands {
		withUnknownSubcommands(cmd)
		withVariableCheck(cmd)
		withExamples(cmd, examples)
	}
	useHelpPrinter.Do(func() { cli.HelpPrinter = printHelp })
	return app
}

// withUnknownSubcommands makes a typo after a command that has
// subcommands (etalake track ad) a usage error naming the nearest one:
// cli's default shows help and exits 3, "partial", which a scheduler
// counts as a success.
//
// It gives each such command a help subcommand of ours (subcommandHelp),
// for the same reason: cli's exits 1 on an unknown topic.
func withUnknownSubcommands(cmd *cli.Command, path ...string) {
	if len(cmd.Subcommands) == 0 {
		return
	}
	path = append(slices.Clip(path), cmd.Name)
	if cmd.Action == nil {
		cmd.Action = unknownSubcommand
	}
	if cmd.OnUsageError == nil {
		cmd.OnUsageError = usageError
	}
	for _, sub := range cmd.Subcommands {
		withUnknownSubcommands(sub, path...)
	}
	if cmd.Command("help") == nil {
		cmd.Subcommands = append(cmd.Subcommands, subcommandHelp(cmd, path))
	}
}

// unknownSubcommand runs when the argument after a command names none of
// its subcommands; no argument at all shows the command's help.
func unknownSubcommand(c *cli.Context) error {
	if !c.Args().Present() {
		return cli.ShowSubcommandHelp(c)
	}
	name := commandPath(c)
	return usageErr{fmt.Errorf("%s has no command %q%s (etalake help %s lists them)", name, c.Args().First(), nearest(c.Command.Subcommands, c.Args().First()), name)}
}

// unknownCommand runs when the first argument names no command: a typo in
// a crontab is a usage error (exit 2) naming the nearest command; no
// argument at all shows the help.
func unknownCommand(c *cli.Context) error {
	if !c.Args().Present() {
		return cli.ShowAppHelp(c)
	}
	return usageErr{fmt.Errorf("unknown command %q%s (etalake help lists them)", c.Args().First(), nearest(c.App.Commands, c.Args().First()))}
}

// nearest suggests the command closest to name, as cli does for flags.
func nearest(commands []*cli.Command, name string) string {
	if cli.SuggestCommand == nil {
		return ""
	}
	if s := cli.SuggestCommand(commands, name); s != "" {
		return ". " + s
	}
	return ""
}

// usageErr marks a command line the user must fix (exit 2).
type usageErr struct{ err error }

func (e usageErr) Error() string { return e.err.Error() }
func (e usageErr) Unwrap() error { return e.err }

// usageError marks a command line cli refused, naming the nearest flag
// when the flag is unknown, or a variable that does not read as its
// flag's type, naming the variable and the flag.
func usageError(c *cli.Context, err error, _ bool) error {
	flags := c.App.Flags
	if c.Command != nil {
		flags = c.Command.Flags
	}
	if e := envValueError(flags); e != nil { // cli applies the variables before it reads the command line
		return usageErr{e}
	}
	const unknown = "flag provided but not defined: -"
	if name, ok := strings.CutPrefix(err.Error(), unknown); ok && c.Command != nil {
		name = strings.TrimLeft(name, "-")
		path := commandPath(c)
		if path == "" && commandFlag(c.App.Commands, name) {
			return usageErr{&misplacedFlag{flag: name, commands: c.App.Commands}}
		}
		err = fmt.Errorf("unknown flag --%s (%s --help lists them)", name, strings.TrimSpace("etalake "+path))
		if cli.SuggestFlag != nil {
			if s := cli.SuggestFlag(c.Command.Flags, name, false); s != "" {
				err = fmt.Errorf("unknown flag --%s; did you mean %s?", name, s)
			}
		}
	}
	return usageErr{err}
}

// configError is a missing or malformed setting (exit 2).
func configError(format string, args ...any) error {
	return usageErr{fmt.Errorf(format, args...)}
}

// ended is a job that ended short of ok without an error (partial): its
// verdict, and the last line that says why.
type ended struct {
	verdict jobs.Verdict
	why     string
}

func (e ended) Error() string { return e.why }

// exitCode maps the error a command returns to the documented exit
// codes: a command line to fix, how a job ended (exitCodes), or what an
// error says of it (jobs.Judge).
func exitCode(err error) int { return exitCodes[verdictOf(err)] }

// verdictOf is how a command that ended with err ended: a command line
// to fix is refused (exit 2).
func verdictOf(err error) jobs.Verdict {
	var ue usageErr
	var e ended
	switch {
	case err == nil:
		return jobs.VerdictOK
	case errors.As(err, &ue):
		return jobs.VerdictRefused
	case errors.As(err, &e):
		return e.verdict
	}
	return jobs.Judge(load.StatusFailed, err)
}

// jobExit is the exit code of a job that ended with verdict v and err,
// for the summary that says it before the command returns.
func jobExit(v jobs.Verdict, err error) int {
	if err != nil {
		return exitCode(err)
	}
	return exitCodes[v]
}

// commandPath is the full path of the command c runs, as typed after
// etalake ("track add"): cli's Command.FullName is only the last name,
// so a hint built from it would name a command that does not exist.
func commandPath(c *cli.Context) string {
	var names []string
	for _, x := range c.Lineage() {
		if x.Command == nil || x.Command.Name == "" || x.Command.Name == c.App.Name { // the root context's command is the app
			continue
		}
		if len(names) > 0 && names[0] == x.Command.Name {
			continue // a command's own context and the one of its subcommands' app
		}
		names = append([]string{x.Command.Name}, names...)
	}
	return strings.Join(names, " ")
}
