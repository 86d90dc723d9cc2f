package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// nightlyRun feeds a lake night by night, as the nightly job does: a 1×
// world of nights+1 days (the first size of sizeList), each day's answers
// imported by its own job with the lake, and no lake maintain. It prints
// the rows each night committed (data and deletes) against the rows it
// derived, the rows the upkeep compacted, its wall time and its publish's
// mirror and analytic tables (what grows with the warehouse's age: the
// world's shipments stay the same), and, at the end, the files the
// current snapshot of each lake table holds (issue 40: at most 20 a
// table after 60 nightly commits).
func nightlyRun(nights int, sizeList, dir, bin string) error {
	shipments, err := strconv.Atoi(strings.TrimSpace(strings.Split(sizeList, ",")[0]))
	if err != nil || shipments < 1 {
		return fmt.Errorf("-sizes %q: want a shipment count first", sizeList)
	}
	dir, bin, cleanup, err := setup(dir, bin)
	if err != nil {
		return err
	}
	defer cleanup()
	w := &world{dir: filepath.Join(dir, fmt.Sprintf("nightly%d", shipments))}
	if err := os.RemoveAll(w.dir); err != nil {
		return err
	}
	resp := filepath.Join(w.dir, "responses")
	if err := etalake(bin, "sim", "responses", "--seed", "1", "--shipments", strconv.Itoa(shipments), "--days", strconv.Itoa(nights), "--out", resp); err != nil {
		return err
	}
	files, _ := filepath.Glob(filepath.Join(resp, "*.ndjson"))
	slices.Sort(files)
	if len(files) < nights {
		return fmt.Errorf("sim responses wrote %d days in %s; want %d", len(files), resp, nights)
	}
	var derived, written, compacted int64
	var took time.Duration
	fmt.Println("| night | rows derived | lake rows written (data + deletes) | rows compacted | wall, s | mirror, s | of it the analytic tables' files, s | analytic tables, s |")
	fmt.Println("|---:|---:|---:|---:|---:|---:|---:|---:|")
	for i, f := range files[:nights] {
		start := time.Now()
		out, errOut, err := etalakeOutput(bin, append([]string{"import"}, append(w.lakeFlags(), f)...)...)
		if err != nil && exitCode(err) != 3 {
			return fmt.Errorf("night %d: %w", i+1, err)
		}
		wall := time.Since(start)
		d := derivedRows(out)
		r := logInt(errOut, lakeRows) + logInt(errOut, lakeDeleted)
		c := logInt(errOut, lakeCompacted)
		derived, written, compacted, took = derived+d, written+r, compacted+c, took+wall
		fmt.Printf("| %d | %d | %d | %d | %.2f | %.2f | %.2f | %.2f |\n", i+1, d, r, c, wall.Seconds(), logSeconds(errOut, mirrorTook), logSeconds(errOut, analyticsFilesTook), logSeconds(errOut, refreshTook))
	}
	most, which, err := w.lakeFiles(bin)
	if err != nil {
		return err
	}
	fmt.Printf("\n%d nights: %d rows derived, %d lake rows written (%.2f a derived row), %d compacted by the upkeep (%.2f a derived row), %.1f s in all.\n",
		nights, derived, written, float64(written)/float64(max(derived, 1)), compacted, float64(compacted)/float64(max(derived, 1)), took.Seconds())
	fmt.Printf("Files of the current snapshots after them: at most %d in a table (%s), data and delete files.\n", most, which)
	return nil
}

// logInt is the number re finds in a job's log, 0 when absent.
func logInt(log string, re *regexp.Regexp) int64 {
	m := re.FindStringSubmatch(log)
	if m == nil {
		return 0
	}
	n, _ := strconv.ParseInt(m[1], 10, 64)
	return n
}

// logSeconds is the duration re finds in a job's log (Go's notation:
// 693ms, 1.306s), in seconds; 0 when absent.
func logSeconds(log string, re *regexp.Regexp) float64 {
	m := re.FindStringSubmatch(log)
	if m == nil {
		return 0
	}
	d, err := time.ParseDuration(m[1])
	if err != nil {
		return 0
	}
	return d.Seconds()
}

// derivedRows sums the rows a job's summary says it derived.
func derivedRows(out string) int64 {
	var n int64
	if m := rowsLine.FindStringSubmatch(out); m != nil {
		for _, p := range rowsPair.FindAllStringSubmatch(m[1], -1) {
			v, _ := strconv.ParseInt(p[1], 10, 64)
			n += v
		}
	}
	return n
}
