package cli

import (
	"fmt"

	"github.com/urfave/cli/v2"
)

// helpCommand shows the commands, or one command's help: a name that
// is no command is a usage error naming the nearest one.
func helpCommand() *cli.Command {
	return &cli.Command{
		Name:      "help",
		Usage:     "show the commands, or one command's flags and description",
		ArgsUsage: "[COMMAND [SUBCOMMAND]]",
		Action: func(c *cli.Context) error {
			args := c.Args().Slice()
			if len(args) == 0 {
				return cli.ShowAppHelp(c)
			}
			cmd := c.App.Command(args[0])
			if cmd == nil {
				return usageErr{fmt.Errorf("no command %q%s", args[0], nearest(c.App.Commands, args[0]))}
			}
			if len(args) > 1 && cmd.Command(args[1]) == nil {
				return usageErr{fmt.Errorf("%s has no command %q%s", cmd.Name, args[1], nearest(cmd.Subcommands, args[1]))}
			}
			// The command's own --help, which knows its full name.
			return c.App.RunContext(c.Context, append(append([]string{c.App.Name}, args[:min(len(args), 2)]...), "--help"))
		},
	}
}
