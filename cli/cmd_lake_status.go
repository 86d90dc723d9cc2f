package cli

import (
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"
)

func lakeStatusCommand() *cli.Command {
	return &cli.Command{
		Name:  "status",
		Usage: "show the lake's tables: snapshots, data files, rows, bytes, and the last run each writer committed",
		Description: "Reads the catalog and each table's current snapshot (its manifests, not a listing of the folder,\n" +
			"so files of uncommitted or expired work are not counted). A writer is a warehouse feeding the lake\n" +
			"(its id is the column and first partition etalake_writer); its last run is the etl_runs.run_id of the\n" +
			"last job whose commit reached the table, kept in the table's properties (etalake.writer.<id>.last-run), so a\n" +
			"writer whose snapshots 'etalake lake maintain' expired is still listed while the table holds its rows.\n" +
			"Snapshots pile up with every job until 'etalake lake maintain' expires them. A table whose current metadata\n" +
			"file, or a manifest, data or delete file of its current snapshot, is missing is said broken, naming the\n" +
			"file, and the command exits 1: 'etalake lake mend' rolls it back to its last whole snapshot.",
		Flags:        append(lakeFlags(), logFlags()...),
		OnUsageError: usageError,
		Action: func(c *cli.Context) error {
			lk, err := needLake(c)
			if err != nil {
				return err
			}
			defer lk.Close()
			tables, err := lk.Status(c.Context)
			if err != nil {
				return err
			}
			w := tabwriter.NewWriter(c.App.Writer, 0, 2, 2, ' ', tabwriter.AlignRight)
			fmt.Fprintln(w, "table\tsnapshots\tfiles\tdelete files\trows\tbytes\tcommitted\tlast run per writer\t")
			var broken []string
			for _, t := range tables {
				if t.Missing != "" {
					fmt.Fprintf(w, "%s\t-\t-\t-\t-\t-\tbroken: %s is missing\t\t\n", t.Name, t.Missing)
					broken = append(broken, t.Name)
					continue
				}
				if !t.Exists {
					fmt.Fprintf(w, "%s\t-\t-\t-\t-\t-\tnot created yet\t\t\n", t.Name)
					continue
				}
				at := "-"
				if t.Current != 0 {
					at = t.At.Format(time.RFC3339)
				}
				var runs []string
				for _, r := range t.Writers {
					run := r.Run
					if run == "" {
						run = "rows, no run recorded" // rows of a lake older than the writers' properties, their snapshots expired
					}
					runs = append(runs, r.Writer+": "+run)
				}
				fmt.Fprintf(w, "%s\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t\n", t.Name, t.Snapshots, t.Files, t.DeleteFiles, t.Rows, t.Bytes, at, strings.Join(runs, ", "))
			}
			if err := w.Flush(); err != nil {
				return err
			}
			fmt.Fprintln(c.App.Writer, "\ncurrent metadata files (DuckDB: iceberg_scan('<file>')):")
			for _, t := range tables {
				if t.Exists && t.Missing == "" {
					fmt.Fprintf(c.App.Writer, "  %-20s %s\n", t.Name, t.Metadata)
				}
			}
			if len(broken) > 0 {
				return fmt.Errorf("lake status: %s cannot be read whole (see above): 'etalake lake mend' rolls each back to its last whole snapshot", strings.Join(broken, ", "))
			}
			return nil
		},
	}
}
