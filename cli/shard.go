package cli

import (
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/etalake/etalake/jobs"
)

const flagShard = "shard"

func shardFlag() cli.Flag {
	return &cli.StringFlag{Category: catCredits, Name: flagShard, EnvVars: []string{"ETALAKE_SHARD"}, DefaultText: "everything",
		Usage: "ask only this worker's part I of N workers, I/N (1 ≤ I ≤ N ≤ 1024): the ports, lanes, vessels and shipments whose FNV-1a hash of their name (port:NLRTM, shipment:CT:MSCU1234566) modulo N is I-1, so that N workers given the same selection ask each once; the nightly run adds only its part of --shipments to the tracked set, asks only its part of the tracked set, and paces 1/N of the key's allowance; --reask is asked whatever the shard"}
}

// readShard reads --shard (jobs.ParseShard validates it).
func readShard(c *cli.Context) (jobs.Shard, error) {
	s, err := jobs.ParseShard(c.String(flagShard))
	return s, settingError(c, err)
}

// writeShard says the worker's part of what it was given, in the plan:
// "shard 2/4: 103 of 412 tracked shipments, 3 of 12 ports, …"; nothing
// without --shard.
func writeShard(w io.Writer, sp jobs.ShardPlan) {
	if sp.Shard.Whole() {
		return
	}
	fmt.Fprintf(w, "  shard     %s: %s (FNV-1a of each resource's name)\n", sp.Shard, strings.Join(shardParts(sp), ", "))
}

// shardParts words the kinds of the shard's plan that were given.
func shardParts(sp jobs.ShardPlan) []string {
	var parts []string
	for _, k := range []struct {
		p    jobs.Part
		what string
	}{
		{sp.Tracked, "tracked shipments"}, {sp.Ports, "ports"}, {sp.Lanes, "lanes"}, {sp.Vessels, "vessels"}, {sp.Shipments, "shipments given"},
	} {
		if k.p.Of > 0 {
			parts = append(parts, fmt.Sprintf("%d of %d %s", k.p.Mine, k.p.Of, k.what))
		}
	}
	if len(parts) == 0 {
		return []string{"nothing tracked or given"}
	}
	return parts
}

// shardAttr is the shard's part in the JSON plan: null without --shard.
func shardAttr(sp jobs.ShardPlan) slog.Attr {
	if sp.Shard.Whole() {
		return slog.Any("shard", nil)
	}
	part := func(name string, p jobs.Part) slog.Attr {
		return slog.Group(name, slog.Int("mine", p.Mine), slog.Int("of", p.Of))
	}
	return slog.Group("shard", slog.String("part", sp.Shard.String()),
		part("tracked", sp.Tracked), part("ports", sp.Ports), part("lanes", sp.Lanes), part("vessels", sp.Vessels), part("shipments", sp.Shipments))
}
