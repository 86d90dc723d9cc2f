package cli

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/etalake/etalake/extract"
	"github.com/etalake/etalake/jobs"
	"github.com/etalake/etalake/wire"
)

// listItems splits a list flag: comma-separated values, or
// @FILE for one value per line (blank lines and # comments skipped; in a
// CSV file with a header, the first column). Each item comes with where it
// was read, for error messages.
func listItems(flag, value string) ([]item, error) {
	value = strings.TrimSpace(value)
	if value == "" {
		return nil, nil
	}
	if !strings.HasPrefix(value, "@") {
		var out []item
		for _, f := range strings.FieldsFunc(value, func(r rune) bool { return r == ',' || r == '\n' || r == ';' }) {
			if f = strings.TrimSpace(f); f != "" {
				out = append(out, item{where: "--" + flag, text: f})
			}
		}
		return out, nil
	}
	path := value[1:]
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--%s: %w", flag, err)
	}
	defer f.Close()
	var out []item
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		first, _, _ := strings.Cut(line, ",")
		first = strings.TrimSpace(first)
		if n == 1 && !looksLikeValue(first) {
			continue // a CSV header
		}
		out = append(out, item{where: fmt.Sprintf("%s:%d", path, n), text: first})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("--%s %s: %w", flag, path, err)
	}
	return out, nil
}

type item struct{ where, text string }

// looksLikeValue tells a header word (locode, imo, pol) from a value: values
// hold a digit or are upper case.
func looksLikeValue(s string) bool {
	return strings.ContainsAny(s, "0123456789") || s == strings.ToUpper(s)
}

// badRow is an input row that was skipped: where it was read (file:line,
// or the flag) and why.
type badRow struct{ where, reason string }

func (b badRow) String() string { return b.where + ": " + b.reason }

// badRows is the input rows a command skipped, every one of them.
type badRows []badRow

// Strings renders each row as "where: reason".
func (bs badRows) Strings() []string {
	out := make([]string, len(bs))
	for i, b := range bs {
		out[i] = b.String()
	}
	return out
}

// strictError is the usage error of --strict: every bad row, one a line.
func (bs badRows) strictError() error {
	return usageErr{fmt.Errorf("%d bad input rows (--strict: nothing was asked):\n  %s", len(bs), strings.Join(bs.Strings(), "\n  "))}
}

// parseList reads list flag flag's value with parse, one item at a time,
// dropping duplicates. A value parse refuses is a bad row, named by where
// it was read, and skipped; an error is a list that cannot be read at all.
func parseList[T comparable](flag, value string, parse func(string) (T, error)) ([]T, badRows, error) {
	items, err := listItems(flag, value)
	if err != nil {
		return nil, nil, err
	}
	var out []T
	var bad badRows
	seen := map[T]bool{}
	for _, it := range items {
		v, err := parse(it.text)
		if err != nil {
			bad = append(bad, badRow{it.where, err.Error()})
			continue
		}
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out, bad, nil
}

// parsePorts reads --ports: UN/LOCODEs, normalised, duplicates dropped.
func parsePorts(value string) ([]string, badRows, error) {
	return parseList("ports", value, extract.ParsePortCode)
}

// parseLanes reads --lanes: POL-POD pairs (CNSHA-NLRTM), duplicates dropped.
func parseLanes(value string) ([]jobs.Lane, badRows, error) {
	return parseList("lanes", value, parseLane)
}

func parseLane(s string) (jobs.Lane, error) {
	a, b, ok := strings.Cut(s, "-")
	if !ok {
		return jobs.Lane{}, fmt.Errorf("invalid lane %q: want POL-POD such as CNSHA-NLRTM", s)
	}
	pol, err := extract.ParsePortCode(a)
	if err != nil {
		return jobs.Lane{}, fmt.Errorf("lane %q: %w", s, err)
	}
	pod, err := extract.ParsePortCode(b)
	if err != nil {
		return jobs.Lane{}, fmt.Errorf("lane %q: %w", s, err)
	}
	if pol == pod {
		return jobs.Lane{}, fmt.Errorf("invalid lane %q: want two different ports", s)
	}
	return jobs.Lane{POL: pol, POD: pod}, nil
}

// parseVessels reads --vessels: IMO numbers (and, for a DCSA provider,
// 8-digit numbers), duplicates dropped.
func parseVessels(value string, api wire.ScheduleAPI) ([]int, badRows, error) {
	return parseList("vessels", value, func(s string) (int, error) { return extract.ParseVessel(s, api) })
}

// readShipments reads a shipments CSV: a header naming shipment_number and,
// optionally, shipment_type and sealine (any order, other columns
// ignored), then one shipment per row. A row that is not a shipment is a
// bad row, named by file and line, and skipped; an error is a file that
// cannot be read as such a CSV at all (no header, an unreadable file).
//
// Each line is read as a record of its own: no field of a shipments file
// spans lines, and a quote left open (a stray " in a number) would
// otherwise swallow every line after it into one field — the rest of the
// file silently lost, and only its first line named.
func readShipments(r io.Reader, name string) ([]wire.ShipmentRef, badRows, error) {
	lines := newCSVLines(r)
	header, headerLine, err := lines.next()
	if errors.Is(err, io.EOF) {
		return nil, nil, fmt.Errorf("%s: empty file: want a header shipment_number,shipment_type,sealine", name)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%s:%d: %w", name, headerLine, err)
	}
	col := map[string]int{}
	for i, h := range header {
		col[strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))] = i
	}
	num, ok := col["shipment_number"]
	if !ok {
		return nil, nil, fmt.Errorf("%s:%d: header %q has no shipment_number column: want shipment_number,shipment_type,sealine", name, headerLine, strings.Join(header, ","))
	}
	field := func(rec []string, c string) string {
		if i, ok := col[c]; ok && i < len(rec) {
			return rec[i]
		}
		return ""
	}
	var out []wire.ShipmentRef
	var bad badRows
	seen := map[wire.ShipmentRef]bool{}
	for {
		rec, line, err := lines.next()
		if errors.Is(err, io.EOF) {
			break
		}
		where := fmt.Sprintf("%s:%d", name, line)
		var le lineError
		if errors.As(err, &le) {
			bad = append(bad, badRow{where, le.Error()})
			continue
		}
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", name, err)
		}
		if num >= len(rec) || strings.TrimSpace(rec[num]) == "" {
			bad = append(bad, badRow{where, "no shipment_number"})
			continue
		}
		ref, err := extract.ParseShipmentRef(rec[num], field(rec, "shipment_type"), field(rec, "sealine"))
		if err != nil {
			bad = append(bad, badRow{where, err.Error()})
			continue
		}
		if !seen[ref] {
			seen[ref] = true
			out = append(out, ref)
		}
	}
	return out, bad, nil
}

// csvLines reads a CSV a line at a time, each line a record of its own,
// skipping blank lines and # comments.
type csvLines struct {
	sc   *bufio.Scanner
	line int
}

// maxCSVLine is the longest line read; a shipments row is a few dozen bytes.
const maxCSVLine = 1 << 20

func newCSVLines(r io.Reader) *csvLines {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxCSVLine)
	return &csvLines{sc: sc}
}

// lineError is a line that is not a CSV record; the lines after it are
// read all the same.
type lineError struct{ err error }

func (e lineError) Error() string { return e.err.Error() }

// next returns the next record and its line number; io.EOF after the last.
// A line that does not parse is a lineError; any other error is the
// file's.
func (l *csvLines) next() ([]string, int, error) {
	for l.sc.Scan() {
		l.line++
		text := l.sc.Text()
		if t := strings.TrimSpace(text); t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		cr := csv.NewReader(strings.NewReader(text))
		cr.FieldsPerRecord = -1
		cr.TrimLeadingSpace = true
		rec, err := cr.Read()
		var pe *csv.ParseError
		switch {
		case errors.As(err, &pe) && errors.Is(pe.Err, csv.ErrQuote):
			return nil, l.line, lineError{fmt.Errorf("a quote is not closed on its line (%s): want a field quoted whole, as \"MSCU1234566\", or no quote", pe.Err)}
		case errors.As(err, &pe):
			return nil, l.line, lineError{pe.Err}
		case err != nil:
			return nil, l.line, lineError{err}
		}
		return rec, l.line, nil
	}
	if err := l.sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, l.line + 1, fmt.Errorf("line %d is longer than %d bytes: not a shipments CSV", l.line+1, maxCSVLine)
		}
		return nil, l.line, err
	}
	return nil, l.line, io.EOF
}

// checkDigitWarnings logs, once per number, the container numbers of refs
// whose ISO 6346 check digit fails (they are asked all the same), and
// returns the warnings.
func checkDigitWarnings(log *slog.Logger, refs []wire.ShipmentRef) []string {
	var out []string
	for _, ref := range refs {
		if w := extract.CheckDigitWarning(ref); w != "" {
			log.Warn("input: " + w)
			out = append(out, w)
		}
	}
	return out
}

// flagsFirst refuses a flag among the arguments: the command line stops
// reading flags at the first argument, so a flag after it would be taken
// for an argument.
func flagsFirst(c *cli.Context) error {
	for _, a := range c.Args().Slice() {
		if strings.HasPrefix(a, "--") {
			return configError("%s after an argument: flags go first, as in etalake %s %s … ARGS", a, commandPath(c), a)
		}
	}
	return nil
}
