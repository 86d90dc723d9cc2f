package cli

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
)

// misplacedFlag is a flag of a command given before the command
// (etalake --log-format json run): etalake itself takes no flag but
// --help, so the flag belongs after the command. cli's parse of the
// first flags does not keep the command line; runApp gives it, so that
// the message shows the line put right.
type misplacedFlag struct {
	flag     string         // the flag's name, without dashes
	commands []*cli.Command // etalake's commands
	args     []string       // the command line, etalake first (nil: unknown)
}

func (e *misplacedFlag) Error() string {
	start := slices.IndexFunc(e.args, func(a string) bool { return findCommand(e.commands, a) != nil })
	if start < 1 {
		return fmt.Sprintf("--%s goes after the command, as in etalake COMMAND --%s … (etalake COMMAND --help lists its flags)", e.flag, e.flag)
	}
	// The command and its subcommands (lake pull), then the flags.
	end, cmds := start, e.commands
	for end < len(e.args) {
		cmd := findCommand(cmds, e.args[end])
		if cmd == nil {
			break
		}
		end, cmds = end+1, cmd.Subcommands
	}
	path := strings.Join(e.args[start:end], " ")
	fixed := append(append([]string{"etalake", path}, e.args[1:start]...), "…")
	return fmt.Sprintf("--%s goes after the command, as in %s (etalake %s --help lists its flags)", e.flag, strings.Join(fixed, " "), path)
}

// findCommand is the command of cmds named name, nil when none is.
func findCommand(cmds []*cli.Command, name string) *cli.Command {
	for _, c := range cmds {
		if c.HasName(name) {
			return c
		}
	}
	return nil
}

// commandFlag reports whether name is a flag of any command of the app.
func commandFlag(cmds []*cli.Command, name string) bool {
	for _, c := range cmds {
		for _, f := range c.Flags {
			if slices.Contains(f.Names(), name) {
				return true
			}
		}
		if commandFlag(c.Subcommands, name) {
			return true
		}
	}
	return false
}

// runApp runs the command line args on app, and gives a misplaced flag's
// error the command line it refused.
func runApp(ctx context.Context, app *cli.App, args []string) error {
	err := app.RunContext(ctx, args)
	var mf *misplacedFlag
	if errors.As(err, &mf) {
		mf.args = args
	}
	return err
}
