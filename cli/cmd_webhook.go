package cli

import "github.com/urfave/cli/v2"

// webhookCommand groups the receiver of the vendor's pushes: serve
// (cmd_webhook_serve.go).
func webhookCommand() *cli.Command {
	return &cli.Command{
		Name:        "webhook",
		Usage:       "receive the vendor's pushed updates",
		Subcommands: []*cli.Command{webhookServeCommand()},
	}
}
