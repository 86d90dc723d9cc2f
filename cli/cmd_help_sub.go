package cli

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"
)

// subcommandHelp is the help subcommand of a command that has
// subcommands (etalake track help add): the command's help, or one
// subcommand's; a name that is none of them is a usage error naming the
// nearest (cli's own help subcommand exits 1 on it, a failure).
func subcommandHelp(parent *cli.Command, path []string) *cli.Command {
	return &cli.Command{
		Name:      "help",
		Usage:     "show the commands, or one command's flags and description",
		Aliases:   []string{"h"}, // as cli's own
		ArgsUsage: "[COMMAND]",
		Action: func(c *cli.Context) error {
			args := c.Args().Slice()
			name := strings.Join(path, " ")
			argv := append([]string{c.App.Name}, path...)
			if len(args) > 0 {
				if parent.Command(args[0]) == nil || args[0] == "help" {
					return usageErr{fmt.Errorf("%s has no command %q%s (etalake help %s lists them)", name, args[0], nearest(parent.Subcommands, args[0]), name)}
				}
				argv = append(argv, args[0])
			}
			return c.App.RunContext(c.Context, append(argv, "--help"))
		},
	}
}
