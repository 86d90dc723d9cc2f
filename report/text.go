package report

import (
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// textWidth is the width the terminal report's prose is wrapped at; its
// tables fit in it too.
const textWidth = 100

// WriteText writes the report as terminal tables: a heading with the
// warehouse's span, the sections, and the credits spent.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	title := r.title()
	b.WriteString(title + "\n" + strings.Repeat("=", utf8.RuneCountInString(title)) + "\n")
	wrap(&b, r.spanLine(), "")
	for i, s := range r.sections() {
		b.WriteString("\n")
		heading := strconv.Itoa(i+1) + ". " + s.Title
		b.WriteString(heading + "\n")
		wrap(&b, s.Intro, "   ")
		if s.Table == nil {
			b.WriteString("\n")
			wrap(&b, s.Missing, "   ")
			continue
		}
		b.WriteString("\n")
		writeTable(&b, s.Table, "   ")
		for _, n := range s.Notes {
			wrap(&b, n, "   ")
		}
	}
	b.WriteString("\n")
	for _, l := range r.creditLines() {
		wrap(&b, l, "")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeTable writes t with its columns aligned, a rule under the header
// and one above the total.
func writeTable(b *strings.Builder, t *table, indent string) {
	width := make([]int, len(t.Cols))
	measure := func(cells []string) {
		for i, c := range cells {
			width[i] = max(width[i], utf8.RuneCountInString(c))
		}
	}
	header := make([]string, len(t.Cols))
	for i, c := range t.Cols {
		header[i] = c.Name
	}
	measure(header)
	for _, row := range t.Rows {
		measure(row)
	}
	if t.Total != nil {
		measure(t.Total)
	}
	line := func(cells []string) string {
		var l strings.Builder
		l.WriteString(indent)
		for i, c := range cells {
			l.WriteString(strings.Repeat(" ", gap(i, t.Cols[i])))
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(c))
			if t.Cols[i].Right {
				l.WriteString(pad + c)
			} else {
				l.WriteString(c + pad)
			}
		}
		return strings.TrimRight(l.String(), " ") + "\n"
	}
	b.WriteString(line(header))
	rule := 0
	for i, c := range t.Cols {
		rule += width[i] + gap(i, c)
	}
	b.WriteString(indent + strings.Repeat("─", rule) + "\n")
	for _, row := range t.Rows {
		b.WriteString(line(row))
	}
	if t.Total != nil {
		b.WriteString(indent + strings.Repeat("─", rule) + "\n")
		b.WriteString(line(t.Total))
	}
}

// gap is the space before column i: none before the first, one before a
// Sub column, two otherwise.
func gap(i int, c column) int {
	switch {
	case i == 0:
		return 0
	case c.Sub:
		return 1
	}
	return 2
}

// wrap writes s in lines of at most textWidth runes, each after indent.
func wrap(b *strings.Builder, s, indent string) {
	n := 0
	for i, word := range strings.Fields(s) {
		wl := utf8.RuneCountInString(word)
		switch {
		case i == 0:
			b.WriteString(indent)
			n = len(indent)
		case n+1+wl > textWidth:
			b.WriteString("\n" + indent)
			n = len(indent)
		default:
			b.WriteString(" ")
			n++
		}
		b.WriteString(word)
		n += wl
	}
	b.WriteString("\n")
}
