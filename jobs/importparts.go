package jobs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"
)

// DefaultImportPartBytes is how much JSON one process imports before the
// next takes over (etalake import --part-size): a process's C memory grows
// with the work it has done (BENCHMARKS.md, "One import, or nightly
// jobs"), so an input in parts peaks at what one part takes, plus a little
// for the size of the warehouse it merges into ("Import in parts": 429 MiB
// at 10 M events against 465–471 in one process, for 1.02–1.04× the time;
// 392 MiB since loads are bounded by their memory, "A load's memory").
// Smaller parts cost time and lower the peak no further.
const DefaultImportPartBytes = 1 << 30

// ImportSource is a file to import, or a range of the lines of an NDJSON
// (or JSONL) file.
type ImportSource struct {
	Path string `json:"path"`
	// Offset and End delimit the bytes of the lines to read (End 0: to the
	// end of the file); Line is the number of the line at Offset (0: 1).
	Offset int64 `json:"offset,omitempty"`
	End    int64 `json:"end,omitempty"`
	Line   int   `json:"line,omitempty"`
}

// String names the source as a log line or the run ledger would.
func (s ImportSource) String() string {
	if s.Offset == 0 && s.End == 0 {
		return s.Path
	}
	end := "end"
	if s.End > 0 {
		end = fmt.Sprint(s.End)
	}
	return fmt.Sprintf("%s from line %d (bytes %d–%s)", s.Path, max(s.Line, 1), s.Offset, end)
}

// ImportPart is the share of an import's input one process takes on.
type ImportPart struct {
	Paths   []string       `json:"paths"` // the import's arguments, for the run ledger
	Index   int            `json:"index"` // 1-based
	Of      int            `json:"of"`
	Sources []ImportSource `json:"sources"`
	Bytes   int64          `json:"bytes"`
	// Last: the part that writes the Parquet mirror and refreshes the
	// analytic tables, for every part's rows.
	Last bool `json:"last"`
	// Finish: a last part that imports nothing and only writes the mirror
	// and the analytics, in a process that has loaded nothing: after the
	// loads of a part, they took more than either alone (a 5 M replay's
	// last part: 388 MiB; the loads' parts 356–375, the mirror's 250–269).
	Finish bool `json:"finish,omitempty"`
}

// what names what a part does, for the log and errors.
func (p ImportPart) what() string {
	if p.Finish {
		return finishing
	}
	return "from " + p.Sources[0].String()
}

// finishing is what the finishing part of an import or a replay does.
const finishing = "the Parquet mirror and the analytic tables"

func (p ImportPart) sourceNames() []string {
	names := make([]string, len(p.Sources))
	for i, s := range p.Sources {
		names[i] = s.String()
	}
	return names
}

// PlanImport splits the files of paths (as Import finds them, in the same
// order) into consecutive parts of at most partBytes each: whole files
// while they fit, and an NDJSON or JSONL file larger than a part in ranges
// of whole lines. A part holds at least one body, so a single .json file
// (or line) larger than partBytes is a part of its own. An import of more
// than one part ends with a Finish part. partBytes ≤ 0 means one part for
// everything.
func PlanImport(paths []string, partBytes int64) ([]ImportPart, error) {
	files, err := importFiles(paths)
	if err != nil {
		return nil, err
	}
	var parts []ImportPart
	cur := ImportPart{}
	next := func() {
		if len(cur.Sources) > 0 {
			parts = append(parts, cur)
		}
		cur = ImportPart{}
	}
	for _, f := range files {
		st, err := os.Stat(f)
		if err != nil {
			return nil, err
		}
		size := st.Size()
		switch {
		case partBytes <= 0 || cur.Bytes+size <= partBytes:
		case size <= partBytes || !linesFile(f):
			next()
		default:
			next()
			ranges, err := lineRanges(f, partBytes)
			if err != nil {
				return nil, err
			}
			for _, r := range ranges[:len(ranges)-1] {
				cur.Sources, cur.Bytes = []ImportSource{r}, r.End-r.Offset
				next()
			}
			last := ranges[len(ranges)-1]
			cur.Sources, cur.Bytes = []ImportSource{last}, size-last.Offset
			continue
		}
		cur.Sources = append(cur.Sources, ImportSource{Path: f})
		cur.Bytes += size
	}
	next()
	if len(parts) > 1 {
		parts = append(parts, ImportPart{Finish: true})
	}
	for i := range parts {
		parts[i].Paths, parts[i].Index, parts[i].Of = paths, i+1, len(parts)
	}
	parts[len(parts)-1].Last = true
	return parts, nil
}

// lineRanges cuts a file of lines into ranges of at most partBytes, each
// ending at the end of a line (a line longer than partBytes is a range of
// its own). The last range runs to the end of the file (End 0).
func lineRanges(path string, partBytes int64) ([]ImportSource, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	var out []ImportSource
	cur := ImportSource{Path: path, Line: 1}
	line := 1
	var pos, lastEnd int64 // lastEnd: the end of the last whole line read
	buf := make([]byte, 1<<20)
	for {
		n, err := fh.Read(buf)
		for b := buf[:n]; ; {
			i := bytes.IndexByte(b, '\n')
			if i < 0 {
				pos += int64(len(b))
				break
			}
			pos += int64(i + 1)
			b = b[i+1:]
			line++
			if pos-cur.Offset > partBytes && lastEnd > cur.Offset {
				// this line does not fit: the range ends before it
				cur.End = lastEnd
				out = append(out, cur)
				cur = ImportSource{Path: path, Offset: lastEnd, Line: line - 1}
			}
			if pos-cur.Offset >= partBytes {
				cur.End = pos
				out = append(out, cur)
				cur = ImportSource{Path: path, Offset: pos, Line: line}
			}
			lastEnd = pos
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	if cur.Offset < pos || len(out) == 0 {
		out = append(out, cur)
	} else {
		// the file ends with the last range's newline: it runs to the end
		out[len(out)-1].End = 0
	}
	return out, nil
}

// PartRunner imports one part of an import, usually in a process of its
// own (PartProcess), and says what it did; on failure, what it did before.
type PartRunner func(ctx context.Context, part ImportPart, opt ImportOptions) (ImportStats, error)

// ImportParts imports the parts PlanImport made, in order, each by run, and
// adds up what they did. It stops at the first part that fails: the parts
// before it stay imported (and the Parquet mirror, which only the last
// part writes, catches up at the next job that writes the warehouse).
// Bodies refused by any part are reported as Import reports them. A
// single part is run as it is, its error unwrapped.
func ImportParts(ctx context.Context, parts []ImportPart, opt ImportOptions, run PartRunner) (ImportStats, error) {
	total := ImportStats{Rows: map[string]int64{}}
	if _, err := opt.identity(); err != nil {
		return total, err
	}
	if len(parts) == 1 {
		return run(ctx, parts[0], opt)
	}
	now := opt.Now
	if now == nil {
		now = time.Now
	}
	for _, p := range parts {
		if opt.Log != nil {
			attrs := []any{"part", p.Index, "of", p.Of, "bytes", p.Bytes, "sources", len(p.Sources)}
			if p.Finish {
				attrs = append(attrs, "writes", finishing)
			} else {
				attrs = append(attrs, "first", p.Sources[0].String())
			}
			if len(p.Sources) > 1 {
				attrs = append(attrs, "last", p.Sources[len(p.Sources)-1].String())
			}
			opt.Log.Info("import: part", attrs...)
		}
		start := now()
		st, err := run(ctx, p, opt)
		total.add(st)
		if opt.Log != nil {
			opt.Log.Info("import: part done", "part", p.Index, "of", p.Of, "bodies", st.Bodies, "landed", st.Landed,
				"seconds", now().Sub(start).Round(time.Millisecond).Seconds(), "peak_rss_mib", st.PeakRSSKiB>>10)
		}
		if err != nil && !errors.Is(err, ErrSomeRefused) { // refused bodies are in st
			return total, fmt.Errorf("import part %d of %d (%s): %w", p.Index, p.Of, p.what(), err)
		}
	}
	if len(total.Refused) > 0 {
		return total, refusedError(total)
	}
	return total, nil
}

// add counts what another part did.
func (s *ImportStats) add(o ImportStats) {
	s.Runs = append(s.Runs, o.Runs...)
	s.Files += o.Files
	s.Bodies += o.Bodies
	s.Landed += o.Landed
	s.Refused = append(s.Refused, o.Refused...)
	s.DeadLetters += o.DeadLetters
	s.PeakRSSKiB = max(s.PeakRSSKiB, o.PeakRSSKiB)
	for t, n := range o.Rows {
		s.Rows[t] += n
	}
}
