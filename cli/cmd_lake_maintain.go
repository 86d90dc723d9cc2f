package cli

import (
	"fmt"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/etalake/etalake/lake"
)

func lakeMaintainCommand() *cli.Command {
	return &cli.Command{
		Name:  "maintain",
		Usage: "compact small files, expire old snapshots and remove orphan files, table by table",
		Description: "Run it daily or weekly (beside the nightly run; it never blocks a job: each change is one commit,\n" +
			"retried when a job commits meanwhile). Each job's commit already compacts the partitions it wrote\n" +
			"to that need it (files whose position deletes reach 30 % of their rows, small files merged by size);\n" +
			"maintain does the rest. Per table, in order:\n" +
			"  1. compacts: in a partition (a writer's month, or day in a lake created before), the files under\n" +
			"     32 MiB, when two or more, and every file with position deletes, become one file, deletes applied;\n" +
			"  2. expires the snapshots older than --keep-days (the current one never): readers' time travel\n" +
			"     reaches that far back, and the files only expired snapshots used are deleted;\n" +
			"  3. removes orphan files: those no snapshot or metadata file references, older than --orphan-grace.\n" +
			"     A job killed between writing its files and committing leaves some (its next job removes its own\n" +
			"     at once). Whatever the grace, a file is never removed while a commit in flight may reference\n" +
			"     it: every job holds a lease in the catalog's database (table etalake_leases) from before its\n" +
			"     first file to after its last commit, and maintain removes only files older than the start of\n" +
			"     every live lease (less a minute for clocks that disagree), and younger than a minute never; a\n" +
			"     lease whose job died expires after 2 minutes. So --keep-days 0 --orphan-grace 0s is safe beside\n" +
			"     running jobs. Should a table break all the same (lake status says so), 'etalake lake mend'.",
		Flags: append(append(lakeFlags(), logFlags()...),
			&cli.IntFlag{Category: catWarehouse, Name: "keep-days", EnvVars: []string{"ETALAKE_LAKE_KEEP_DAYS"}, Value: lake.DefaultKeepDays, Usage: "expire snapshots older than this many days (the current one is always kept)"},
			&cli.DurationFlag{Category: catWarehouse, Name: "orphan-grace", EnvVars: []string{"ETALAKE_LAKE_ORPHAN_GRACE"}, Value: lake.DefaultOrphanGrace, Usage: "remove unreferenced files only once older than this, and than every commit in flight (its lease); 0s is safe beside running jobs"},
		),
		OnUsageError: usageError,
		Action: func(c *cli.Context) error {
			opt := lake.DefaultMaintainOptions()
			opt.KeepDays, opt.OrphanGrace = c.Int("keep-days"), c.Duration("orphan-grace")
			if err := opt.Validate(); err != nil {
				return usageErr{err}
			}
			lk, err := needLake(c)
			if err != nil {
				return err
			}
			defer lk.Close()
			done, err := lk.Maintain(c.Context, opt)
			w := tabwriter.NewWriter(c.App.Writer, 0, 2, 2, ' ', tabwriter.AlignRight)
			fmt.Fprintln(w, "table\tpartitions compacted\tfiles rewritten\tsnapshots expired\torphans removed\tbytes freed\t")
			for _, t := range done {
				fmt.Fprintf(w, "%s\t%d\t%d\t%d\t%d\t%d\t\n", t.Name, t.Compacted, t.Rewritten, t.Expired, t.Orphans, t.Freed)
			}
			if ferr := w.Flush(); err == nil {
				err = ferr
			}
			return err
		},
	}
}
