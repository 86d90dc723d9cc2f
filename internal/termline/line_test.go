package termline

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

// screen replays what was written to a terminal: "\r" returns to the
// start of the line, "\x1b[K" erases the rest of it, "\n" ends it. It
// returns the lines as a person sees them.
func screen(out string) (lines []string) {
	var cur []rune
	col := 0
	for i := 0; i < len(out); {
		switch {
		case strings.HasPrefix(out[i:], "\x1b[K"):
			cur = cur[:col]
			i += 3
			continue
		case out[i] == '\r':
			col = 0
		case out[i] == '\n':
			lines = append(lines, string(cur))
			cur, col = nil, 0
		default:
			r, n := utf8.DecodeRuneInString(out[i:])
			if col < len(cur) {
				cur[col] = r
			} else {
				cur = append(cur, r)
			}
			col++
			i += n
			continue
		}
		i++
	}
	return append(lines, string(cur))
}

// The status never reaches the terminal's last column, however long it is,
// and a log line written while it is shown starts on a line of its own,
// with the status back below it.
func TestTheStatusFitsAndLogLinesNeverRunIntoIt(t *testing.T) {
	var out bytes.Buffer
	width := 40
	l := New(&out, func() int { return width })
	l.Show(strings.Repeat("█", 10) + " 12/400 requests · 3 schedule credits · 9 tracking calls · 4m left")
	if _, err := l.Write([]byte("level=WARN msg=\"run: request failed\" resource=port:NLRTM\n")); err != nil {
		t.Fatal(err)
	}
	width = 20 // the terminal was narrowed
	l.Show(strings.Repeat("█", 12) + " 13/400 requests · …")
	l.Done()
	if _, err := l.Write([]byte("after\n")); err != nil {
		t.Fatal(err)
	}
	lines := screen(out.String())
	want := []string{
		`level=WARN msg="run: request failed" resource=port:NLRTM`,
		"████████████ 13/40…",
		"after",
		"",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Fatalf("the terminal shows\n%q\nwant\n%q", lines, want)
	}
	first := strings.Repeat("█", 10) + " 12/400 requests · 3 schedul…"
	if n := utf8.RuneCountInString(first); n != 39 || strings.Count(out.String(), first) != 2 {
		t.Errorf("the first status was not cut to 39 columns and drawn again after the log line: %q", out.String())
	}
}

// Without a known width the status is cut to 79 columns.
func TestAnUnknownWidthIsEightyColumns(t *testing.T) {
	var out bytes.Buffer
	New(&out, func() int { return 0 }).Show(strings.Repeat("x", 200))
	if n := utf8.RuneCountInString(strings.TrimPrefix(out.String(), clear)); n != DefaultWidth-1 {
		t.Fatalf("status of %d columns, want %d", n, DefaultWidth-1)
	}
}
