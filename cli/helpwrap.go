package cli

import (
	"strings"
	"unicode/utf8"
)

// wrapText wraps a help's text to width columns, its first line starting
// at column offset (the template wrote what is before it) and every
// other line indented by offset.
//
// The help texts are written with line breaks of their own, at about 95
// columns: wrapText reflows them. A paragraph's lines (unindented, one
// after another) are joined, as are the lines of an indented item (a
// line indented deeper than the item's first, or a bullet's "- "
// continued two columns in); an indented line after prose, a bullet, or
// a line as indented as the item before starts an item of its own, kept
// at its indent. A word wider than a line is cut, so that no line is
// wider than width.
func wrapText(s string, offset, width int) string {
	var out []string
	for _, it := range helpItems(s) {
		if it.text == "" {
			out = append(out, "")
			continue
		}
		for i, l := range fill(it.text, width-offset-it.first-len(it.lead), width-offset-it.hang) {
			if i == 0 {
				l = strings.Repeat(" ", it.first) + it.lead + l
			} else {
				l = strings.Repeat(" ", it.hang) + l
			}
			out = append(out, l)
		}
	}
	pad := strings.Repeat(" ", offset)
	for i := range out {
		if out[i] == "" {
			continue
		}
		if i > 0 {
			out[i] = pad + out[i]
		}
	}
	// The first line's own indent was written by the template.
	if len(out) > 0 {
		out[0] = strings.TrimLeft(out[0], " ")
	}
	return strings.Join(out, "\n")
}

// helpItem is a paragraph, or an indented item: its words joined, its
// first line's indent and its other lines'.
type helpItem struct {
	text        string
	first, hang int
	// lead is a term its text follows after two spaces or more, kept
	// as it is ("2  " of "2  usage, …"): the item's other lines align
	// with the text after it.
	lead string
}

// helpItems splits a help text into its paragraphs and items (wrapText).
func helpItems(s string) []helpItem {
	var items []helpItem
	open := false // the last item may take the next line
	for _, line := range strings.Split(s, "\n") {
		text := strings.TrimLeft(line, " ")
		indent := len(line) - len(text)
		if text == "" {
			items = append(items, helpItem{})
			open = false
			continue
		}
		bullet := strings.HasPrefix(text, "- ") || strings.HasPrefix(text, "* ")
		if open && !bullet {
			last := &items[len(items)-1]
			switch {
			case indent == 0 && last.first == 0 && last.hang == 0, // prose
				indent > last.first && (last.first > 0 || last.hang > last.first) && (last.hang == last.first || indent == last.hang):
				if last.hang == last.first {
					last.hang = indent
				}
				last.text += " " + text
				continue
			}
		}
		it := helpItem{text: text, first: indent, hang: indent}
		if bullet {
			it.hang = indent + 2
		} else if indent > 0 {
			it.lead, it.text = termLead(text)
			it.hang = indent + len(it.lead)
		}
		items = append(items, it)
		open = true
	}
	return items
}

// fill breaks the words of text into lines, the first at most
// firstWidth runes wide, the others restWidth.
func fill(text string, firstWidth, restWidth int) []string {
	width := max(firstWidth, 10)
	var lines []string
	line, n := "", 0
	for _, w := range strings.Fields(text) {
		wn := utf8.RuneCountInString(w)
		if n > 0 && n+1+wn > width {
			lines = append(lines, line)
			line, n, width = "", 0, max(restWidth, 10)
		}
		for n == 0 && wn > width { // a word no line holds
			r := []rune(w)
			lines = append(lines, string(r[:width]))
			w, wn, width = string(r[width:]), wn-width, max(restWidth, 10)
		}
		if n > 0 {
			line += " "
			n++
		}
		line += w
		n += wn
	}
	return append(lines, line)
}

// termLead splits an item's text into its term and the spaces after it
// (a term of at most 12 characters followed by two spaces or more), and
// the rest; lead is empty when the text starts with no such term.
func termLead(text string) (lead, rest string) {
	i := strings.Index(text, "  ")
	if i <= 0 || i > 12 || strings.ContainsRune(text[:i], ' ') {
		return "", text
	}
	rest = strings.TrimLeft(text[i:], " ")
	return text[:len(text)-len(rest)], rest
}
