package main

import (
	"time"

	"github.com/urfave/cli/v2"

	"github.com/etalake/etalake/sim"
)

// simCommand groups the simulator's commands: serve (cmd_sim_serve.go),
// world (cmd_sim_world.go) and responses (cmd_sim_responses.go).
func simCommand() *cli.Command {
	return &cli.Command{
		Name:  "sim",
		Usage: "run the service simulator, or print its world",
		Subcommands: []*cli.Command{
			simServeCommand(),
			simWorldCommand(),
			simResponsesCommand(),
		},
	}
}

// worldFlags shape the simulated world, alike for serve, world and
// responses: its defaults are sim.DefaultWorldConfig's.
func worldFlags() []cli.Flag {
	def := sim.DefaultWorldConfig()
	return []cli.Flag{
		&cli.Int64Flag{Name: "seed", Value: 1, Usage: "seed of the world and of the faults: the same seed gives the same answers"},
		// The default start is fixed, so that a seed names one world
		// whatever the day it is run.
		&cli.StringFlag{Name: "start", Value: def.Start.Format(time.RFC3339), Usage: "virtual time at which the clock starts (RFC 3339 or date)"},
		&cli.IntFlag{Name: "shipments", Value: def.Shipments, Usage: "number of shipments in the world"},
		&cli.IntFlag{Name: "days", Value: def.Days, Usage: "days after --start the world keeps answering consistently"},
		&cli.StringFlag{Name: "jumps", Value: "on", Usage: "on: carriers' ETAs also jump — boxes rolled to a later sailing, port calls omitted, voyages sailed by a substitute ship, at each carrier's rates (--list truth lists them); off: ETAs only drift, the world as it was before jumps"},
	}
}

// worldConfig reads the world's flags and validates them
// (sim.WorldConfig.Validate).
func worldConfig(c *cli.Context) (sim.WorldConfig, error) {
	start, err := parseTime("start", c.String("start"))
	if err != nil {
		return sim.WorldConfig{}, err
	}
	cfg := sim.WorldConfig{Seed: c.Int64("seed"), Start: start, Shipments: c.Int("shipments"), Days: c.Int("days")}
	switch j := c.String("jumps"); j {
	case "on":
	case "off":
		cfg.NoJumps = true
	default:
		return sim.WorldConfig{}, configError("--jumps %q: want on or off", j)
	}
	return cfg, settingError(c, cfg.Validate())
}

// jumpsWord says whether a world's ETAs jump, for the lines that describe it.
func jumpsWord(cfg sim.WorldConfig) string {
	if cfg.NoJumps {
		return "off"
	}
	return "on"
}
