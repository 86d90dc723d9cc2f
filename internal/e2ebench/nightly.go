package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// runNightly is -nightly: it imports the day files of the input of
// -events and -days as -nightly consecutive groups, each by a child of
// its own into one warehouse, the way nightly jobs fill a warehouse over
// time, and prints each child's wall time and peak RSS: whether a job's
// peak follows the size of its input or of the warehouse it writes to.
// Only our path runs.
func runNightly(ctx context.Context, out io.Writer, c config, work string) error {
	in, _, err := measuredInput(out, c)
	if err != nil {
		return err
	}
	// Glob lists them sorted: by date.
	days, err := filepath.Glob(filepath.Join(in, "*.ndjson"))
	if err != nil {
		return err
	}
	if c.nightly > len(days) {
		return fmt.Errorf("-nightly %d: the input has only %d days", c.nightly, len(days))
	}
	wh := filepath.Join(work, "nightly")
	if err := os.RemoveAll(wh); err != nil {
		return err
	}
	fmt.Fprintf(out, "%d parts, one child each, into one warehouse\n\n", c.nightly)
	fmt.Fprintf(out, "%-4s %-23s %8s %8s %13s\n", "part", "days", "bodies", "wall s", "peak RSS MiB")
	for p := range c.nightly {
		group := days[p*len(days)/c.nightly : (p+1)*len(days)/c.nightly]
		dir := filepath.Join(work, fmt.Sprintf("nightly-input-%d", p))
		if err := os.RemoveAll(dir); err != nil {
			return err
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		for _, d := range group {
			if err := os.Symlink(d, filepath.Join(dir, filepath.Base(d))); err != nil {
				return err
			}
		}
		ms, err := spawn(ctx, pathOurs, dir, wh, c.child, fmt.Sprintf("nightly-%d", p))
		if err != nil {
			return err
		}
		span := fmt.Sprintf("%s…%s", dayName(group[0]), dayName(group[len(group)-1]))
		fmt.Fprintf(out, "%-4d %-23s %8d %8.2f %13.0f\n", p+1, span, ms.stats.Bodies, ms.wall.Seconds(), mib(ms.rssKiB))
		if err := os.RemoveAll(dir); err != nil {
			return err
		}
	}
	fmt.Fprintf(out, "load average at end: %s\n", loadAverage())
	if c.keep == "" {
		return os.RemoveAll(wh)
	}
	return nil
}

// dayName is a day file's date.
func dayName(path string) string {
	return strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
}
