package cli

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
	return append([]cli.Flag{
		&cli.Int64Flag{Category: catWorld, Name: "seed", Value: 1, Usage: "seed of the world and of the faults: the same seed gives the same answers"},
		// The default start is fixed, so that a seed names one world
		// whatever the day it is run.
		&cli.StringFlag{Category: catWorld, Name: "start", Value: def.Start.Format(time.RFC3339), Usage: "virtual time at which the clock starts (RFC 3339 or date)"},
		&cli.IntFlag{Category: catWorld, Name: "shipments", Value: def.Shipments, Usage: "number of shipments in the world"},
		&cli.IntFlag{Category: catWorld, Name: "days", Value: def.Days, Usage: "days after --start the world keeps answering consistently"},
		jumpsFlag(),
	}, etaErrorFlags()...)
}

// etaErrorFlags are the realistic ETA errors of the world (sim.ETAErrors),
// alike for the demo and the simulator's commands; defaults
// sim.DefaultETAErrors.
func etaErrorFlags() []cli.Flag {
	def := sim.DefaultETAErrors()
	return []cli.Flag{
		&cli.Float64Flag{Category: catWorld, Name: "eta-lane-bias", Value: def.LaneBiasH, Usage: "spread (hours, standard deviation) of each carrier's ETA bias by service and by port around its own; 0 turns it off"},
		&cli.Float64Flag{Category: catWorld, Name: "eta-drift", Value: def.DriftH, Usage: "how far (hours, standard deviation) each carrier's ETA bias wanders in 30 days; 0 turns it off"},
		&cli.Float64Flag{Category: catWorld, Name: "eta-tails", Value: def.TailsDF, Usage: "degrees of freedom (more than 2) of the Student t of carriers' ETA errors, heavy-tailed; 0 turns it off (normal errors)"},
		&cli.Float64Flag{Category: catWorld, Name: "predictive-bias", Value: def.PredictiveBiasH, Usage: "bias (hours, actual − predictive) of the service's predictive ETA; 0 turns it off"},
		&cli.Float64Flag{Category: catWorld, Name: "predictive-gaps", Value: def.PredictiveGaps, Usage: "share of port calls (0 to 0.95) for which the service shows no predictive ETA; 0 turns it off"},
	}
}

// etaErrors reads etaErrorFlags.
func etaErrors(c *cli.Context) *sim.ETAErrors {
	return &sim.ETAErrors{
		LaneBiasH: c.Float64("eta-lane-bias"), DriftH: c.Float64("eta-drift"), TailsDF: c.Float64("eta-tails"),
		PredictiveBiasH: c.Float64("predictive-bias"), PredictiveGaps: c.Float64("predictive-gaps"),
	}
}

// jumpsFlag is --jumps.
func jumpsFlag() cli.Flag {
	return &cli.StringFlag{Category: catWorld, Name: "jumps", Value: "on", Usage: "on: carriers' ETAs also jump — boxes rolled to a later sailing, port calls omitted, voyages sailed by a substitute ship, at each carrier's rates (--list truth lists them); off: ETAs only drift, the world as it was before jumps"}
}

// worldConfig reads the world's flags and validates them
// (sim.WorldConfig.Validate).
func worldConfig(c *cli.Context) (sim.WorldConfig, error) {
	start, err := parseTime("start", c.String("start"))
	if err != nil {
		return sim.WorldConfig{}, err
	}
	cfg := sim.WorldConfig{Seed: c.Int64("seed"), Start: start, Shipments: c.Int("shipments"), Days: c.Int("days"), Errors: etaErrors(c)}
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
