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
	for _, row := range t.Rows {
		measure(row)
	}
	if t.Total != nil {
		measure(t.Total)
	}
	header := headerLine(t, width, indent)
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
	b.WriteString(header)
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

// headerLine is t's header, widening width where a name is wider than
// its column. A column followed by a Sub one has its name over both (as
// the page's header spans them), written from where the pair starts:
// "difference" over "-49% (-58 to -40%)" costs no column of its own.
func headerLine(t *table, width []int, indent string) string {
	var l strings.Builder
	l.WriteString(indent)
	for i := 0; i < len(t.Cols); i++ {
		c := t.Cols[i]
		name := utf8.RuneCountInString(c.Name)
		l.WriteString(strings.Repeat(" ", gap(i, c)))
		if i+1 < len(t.Cols) && t.Cols[i+1].Sub {
			span := width[i] + gap(i+1, t.Cols[i+1]) + width[i+1]
			width[i+1] += max(name-span, 0)
			l.WriteString(c.Name + strings.Repeat(" ", max(span, name)-name))
			i++
			continue
		}
		width[i] = max(width[i], name)
		pad := strings.Repeat(" ", width[i]-name)
		if c.Right {
			l.WriteString(pad + c.Name)
		} else {
			l.WriteString(c.Name + pad)
		}
	}
	return strings.TrimRight(l.String(), " ") + "\n"
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
