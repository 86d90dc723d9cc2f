package cli

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/etalake/etalake/jobs"
	"github.com/etalake/etalake/wire"
)

// selectionFlags choose what a run asks for.
func selectionFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Category: catSelection, Name: "ports", EnvVars: []string{"ETALAKE_PORTS"}, Usage: "by-port schedules: LOCODEs, comma-separated, or @FILE (one per line or a CSV with the code first)"},
		&cli.StringFlag{Category: catSelection, Name: "lanes", EnvVars: []string{"ETALAKE_LANES"}, Usage: "port-to-port schedules: POL-POD pairs (CNSHA-NLRTM), comma-separated, or @FILE"},
		&cli.StringFlag{Category: catSelection, Name: "vessels", EnvVars: []string{"ETALAKE_VESSELS"}, Usage: "by-vessel schedules: IMO numbers, comma-separated, or @FILE"},
		&cli.StringFlag{Category: catSelection, Name: "shipments", EnvVars: []string{"ETALAKE_SHIPMENTS"}, Usage: "shipments to track: a CSV FILE with shipment_number,shipment_type,sealine"},
		&cli.StringFlag{Category: catSelection, Name: "date", EnvVars: []string{envDate}, Usage: "logical date of the run (YYYY-MM-DD); default: today, UTC"},
		&cli.Int64Flag{Category: catCredits, Name: flagMaxCredits, EnvVars: []string{"ETALAKE_MAX_CREDITS"}, DefaultText: "no cap but the balance", Usage: "spend at most N schedule credits, N 0 or more"},
		&cli.Int64Flag{Category: catCredits, Name: flagMaxTrackingCalls, EnvVars: []string{"ETALAKE_MAX_TRACKING_CALLS"}, DefaultText: "no cap but the balance", Usage: "make at most N paid tracking calls, N 0 or more"},
		&cli.BoolFlag{Category: catOutput, Name: "dry-run", Usage: "print the plan — requests, credits per product, time at the rate limit, balance after — without a paid call, and without writing anything: a missing warehouse is not created, an existing one is read as last published"},
		maxBodyFlag(),
		strictFlag(),
		&cli.IntFlag{Category: catRefresh, Name: flagMaxReasks, EnvVars: []string{"ETALAKE_MAX_REASKS"}, Value: jobs.DefaultMaxReasks,
			Usage: "a 2xx answer that does not arrive whole (cut short, broken, not JSON) is asked at most twice more in the job, then kept and dead-lettered, and asked again by the next job of the date; " +
				"after N jobs (1 to 100) without it, or without its last page, the resource is given up for the date: the next jobs of the date ask it once more only when the service has answered its product well since " +
				"(a later job's answers of that product all whole, or this job's, asking it at the end); the summary, etl_runs.given_up and data_freshness name it with the command that asks it now (--reask)"},
		&cli.StringFlag{Category: catSelection, Name: flagReask, Usage: "ask these resources for the date once more, even if given up: as the summary, etl_runs.given_up and data_freshness name them — " +
			"port:NLRTM, p2p:CNSHA-NLRTM, vessel:9321483, shipment:CT:MSCU1234566[:SEALINE] — comma-separated; they join the selection, not the tracked set. " +
			"No ETALAKE_* variable: it is for one job, and set for good it would ask them in every job"},
	}
}

// reaskFlag reads --reask: every name must read, else nothing is asked
// (exit 2) — it is a command pasted from the summary, not an input list.
func reaskFlag(c *cli.Context) (jobs.Selection, error) {
	var sel jobs.Selection
	items, err := listItems(flagReask, c.String(flagReask))
	if err != nil {
		return sel, configError("%v", err)
	}
	for _, it := range items {
		one, err := jobs.ParseResource(it.text)
		if err != nil {
			return sel, configError("--%s: %v", flagReask, err)
		}
		sel = sel.With(one)
	}
	return sel, nil
}

// reaskCommand renders the command that asks resources again for a date,
// as the summary, etl_runs.given_up and data_freshness show it: a
// backfill of this warehouse that asks only them. The other settings
// (URLs, key) are the environment's, as for any job.
func reaskCommand(c *cli.Context) func(time.Time, []string) string {
	dir := c.String(flagWarehouse)
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	return func(day time.Time, names []string) string {
		return fmt.Sprintf("etalake backfill --warehouse %s --date %s --reask %s", shellQuote(dir), day.Format(time.DateOnly), strings.Join(names, ","))
	}
}

// shellQuote quotes s for a POSIX shell when it holds anything but
// letters, digits and the path characters every shell leaves alone.
func shellQuote(s string) string {
	plain := s != ""
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+,:@%=", r)) {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// strictFlag makes any bad input row an error before anything is asked.
func strictFlag() cli.Flag {
	return &cli.BoolFlag{Category: catWarehouse, Name: "strict", EnvVars: []string{"ETALAKE_STRICT"},
		Usage: "refuse the whole input, before any request (exit 2), when any row of --ports, --lanes, --vessels, --shipments or the arguments is bad; without it, every bad row is reported (file:line: reason), skipped, and the job ends partial (exit 3)"}
}

// selection reads the selection flags. A bad row of a list or of the
// shipments file is skipped and returned in bad; an error is input that
// cannot be read at all.
func selection(c *cli.Context) (jobs.Selection, badRows, error) {
	var sel jobs.Selection
	var bad, more badRows
	var err error
	if sel.Ports, more, err = parsePorts(c.String("ports")); err != nil {
		return sel, nil, configError("%v", err)
	}
	bad = append(bad, more...)
	if sel.Lanes, more, err = parseLanes(c.String("lanes")); err != nil {
		return sel, nil, configError("%v", err)
	}
	bad = append(bad, more...)
	api, err := wire.ParseScheduleAPI(c.String(flagScheduleAPI))
	if err != nil {
		return sel, nil, configError("%s: %v", settingName(c, flagScheduleAPI), err)
	}
	if sel.Vessels, more, err = parseVessels(c.String("vessels"), api); err != nil {
		return sel, nil, configError("%v", err)
	}
	bad = append(bad, more...)
	sel.Shipments, more, err = shipmentsFile(c.String("shipments"))
	return sel, append(bad, more...), err
}

// shipmentsFile reads the shipments CSV of --shipments; none when the path
// is empty.
func shipmentsFile(path string) ([]wire.ShipmentRef, badRows, error) {
	if path == "" {
		return nil, nil, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, configError("--shipments: %v", err)
	}
	defer f.Close()
	refs, bad, err := readShipments(f, path)
	if err != nil {
		return nil, nil, usageErr{err}
	}
	return refs, bad, nil
}

// skipBadRows applies --strict to the bad rows of a command's input: an
// error listing them all with it, else each one logged and the list
// returned, for the job to end partial.
func skipBadRows(c *cli.Context, log *slog.Logger, bad badRows) ([]string, error) {
	if len(bad) == 0 {
		return nil, nil
	}
	if c.Bool("strict") {
		return nil, bad.strictError()
	}
	for _, b := range bad {
		log.Warn("input: bad row skipped", "where", b.where, "reason", b.reason)
	}
	return bad.Strings(), nil
}

func logicalDate(c *cli.Context) (time.Time, error) {
	s := c.String("date")
	if s == "" {
		return time.Now().UTC(), nil
	}
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return time.Time{}, configError("--date %q: want a date YYYY-MM-DD", s)
	}
	return t, nil
}

// caps reads --max-credits and --max-tracking-calls.
func caps(c *cli.Context) (int64, int64, error) {
	s, err := readCap(c, flagMaxCredits)
	if err != nil {
		return 0, 0, err
	}
	t, err := readCap(c, flagMaxTrackingCalls)
	return s, t, err
}
