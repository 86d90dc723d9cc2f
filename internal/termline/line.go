package termline

import (
	"bytes"
	"io"
	"os"
	"sync"
	"unicode/utf8"

	"golang.org/x/term"
)

// DefaultWidth is the width assumed when the terminal does not say.
const DefaultWidth = 80

// clear returns to the start of the line and erases it (ANSI EL).
const clear = "\r\x1b[K"

// Line is a terminal's last line, holding a status, and a writer for
// whole log lines that keeps the status below them. It is safe for
// concurrent use.
type Line struct {
	mu    sync.Mutex
	w     io.Writer
	width func() int
	shown string // the status as drawn; "" when none is
}

// New returns a Line writing to w, a terminal whose width in columns width
// reports (0 or less when unknown: DefaultWidth).
func New(w io.Writer, width func() int) *Line {
	return &Line{w: w, width: width}
}

// Width reports the width of terminal f, 0 when it cannot be known.
func Width(f *os.File) func() int {
	return func() int {
		w, _, err := term.GetSize(int(f.Fd()))
		if err != nil {
			return 0
		}
		return w
	}
}

// Show draws status in place of the one shown, cut to one column less
// than the terminal's width (a character in the last column makes some
// terminals wrap).
func (l *Line) Show(status string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.shown = fit(status, l.columns()-1)
	_, _ = io.WriteString(l.w, clear+l.shown)
}

// Done leaves the status shown on its line and ends that line, so that
// what is written next starts below it.
func (l *Line) Done() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.shown != "" {
		_, _ = io.WriteString(l.w, "\n")
		l.shown = ""
	}
}

// Write writes log output: the status is cleared first and drawn again
// below p once p ends a line. slog's handlers write one record a call.
func (l *Line) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.shown == "" {
		return l.w.Write(p)
	}
	if _, err := io.WriteString(l.w, clear); err != nil {
		return 0, err
	}
	n, err := l.w.Write(p)
	if err == nil && bytes.HasSuffix(p, []byte("\n")) {
		_, err = io.WriteString(l.w, l.shown)
	}
	return n, err
}

func (l *Line) columns() int {
	if w := l.width(); w > 0 {
		return w
	}
	return DefaultWidth
}

// fit cuts s to at most n characters (one column each: the status holds
// no wide characters), marking a cut with "…".
func fit(s string, n int) string {
	if n < 1 {
		return ""
	}
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i, count := 0, 0
	for i = range s {
		if count == n-1 {
			break
		}
		count++
	}
	return s[:i] + "…"
}
