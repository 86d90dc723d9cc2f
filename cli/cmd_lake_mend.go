package cli

import (
	"fmt"
	"time"

	"github.com/urfave/cli/v2"
)

func lakeMendCommand() *cli.Command {
	return &cli.Command{
		Name:  "mend",
		Usage: "roll each table whose current metadata or snapshot files are missing back to its last whole snapshot",
		Description: "When 'etalake lake status' says a table is broken (its current metadata file, a manifest or a data\n" +
			"file missing, which no reader can read past), mend points the catalog at the newest metadata file\n" +
			"in the table's metadata/ folder, older than the broken one and committed, whose manifests and data\n" +
			"files all exist, and says what was lost: the runs of newer metadata files that the one kept lacks\n" +
			"(and, when the current metadata file itself is gone, what it alone held, which nothing names).\n" +
			"The next job of every writer then sends its rows of each mended table again, whole, so the lake\n" +
			"equals the warehouses once each has run. Tables that are whole are left alone; it is safe beside\n" +
			"running jobs (the catalog's pointer moves only if it still points at the broken file).",
		Flags:        append(lakeFlags(), logFlags()...),
		OnUsageError: usageError,
		Action: func(c *cli.Context) error {
			lk, err := needLake(c)
			if err != nil {
				return err
			}
			defer lk.Close()
			mended, err := lk.Mend(c.Context)
			for _, m := range mended {
				fmt.Fprintf(c.App.Writer, "%s: %s was missing; mended from %s to %s", m.Name, m.Was, m.From, m.To)
				if m.Snapshot != 0 {
					fmt.Fprintf(c.App.Writer, " (snapshot %d, committed %s)", m.Snapshot, m.At.Format(time.RFC3339))
				}
				fmt.Fprintln(c.App.Writer)
				for _, r := range m.Lost {
					fmt.Fprintf(c.App.Writer, "  lost: writer %s's run %s (committed %s)\n", r.Writer, r.Run, r.At.Format(time.RFC3339))
				}
				if m.LostUnknown {
					fmt.Fprintf(c.App.Writer, "  lost: whatever %s alone held\n", m.From)
				}
				fmt.Fprintln(c.App.Writer, "  every writer's next job sends its rows of this table again")
			}
			if err == nil && len(mended) == 0 {
				fmt.Fprintln(c.App.Writer, "every table is whole: nothing to mend")
			}
			return err
		},
	}
}
