package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// The tests of README.md and docs/ read Markdown with the few rules they
// need (fenced blocks, ATX headings, inline links, tables), so that what
// the README shows is checked against the code and cannot drift from it.

// mdBlock is a fenced code block: its info string's language, the line of
// its opening fence (1-based) and its text, and the file it is in when
// read by docBlocks.
type mdBlock struct {
	lang string
	line int
	text string
	file string
}

var fenceRE = regexp.MustCompile("^ {0,3}(```+|~~~+)\\s*([^`\\s]*)")

// mdBlocks returns the fenced code blocks of a Markdown text, in order.
func mdBlocks(text string) []mdBlock {
	var blocks []mdBlock
	var cur *mdBlock
	var fence string
	var body []string
	for i, l := range strings.Split(text, "\n") {
		if cur == nil {
			if m := fenceRE.FindStringSubmatch(l); m != nil {
				cur, fence, body = &mdBlock{lang: m[2], line: i + 1}, m[1], nil
			}
			continue
		}
		if t := strings.TrimSpace(l); strings.HasPrefix(t, fence) && strings.Trim(t, fence[:1]) == "" {
			cur.text = strings.Join(body, "\n") + "\n"
			blocks = append(blocks, *cur)
			cur = nil
			continue
		}
		body = append(body, l)
	}
	return blocks
}

// mdProse returns the lines of a Markdown text outside fenced code blocks,
// with the lines of the blocks blanked so that line numbers still hold.
func mdProse(text string) []string {
	lines := strings.Split(text, "\n")
	var fence string
	for i, l := range lines {
		if fence == "" {
			if m := fenceRE.FindStringSubmatch(l); m != nil {
				fence, lines[i] = m[1], ""
			}
			continue
		}
		if t := strings.TrimSpace(l); strings.HasPrefix(t, fence) && strings.Trim(t, fence[:1]) == "" {
			fence = ""
		}
		lines[i] = ""
	}
	return lines
}

var (
	headingRE  = regexp.MustCompile(`^ {0,3}(#{1,6})\s+(.*?)(?:\s+#+)?\s*$`)
	codeSpanRE = regexp.MustCompile("`+([^`]*)`+")
	// A link or an image: [text](target "title") or ![alt](target).
	inlineLinkRE = regexp.MustCompile(`!?\[((?:[^\[\]]|\[[^\]]*\])*)\]\(\s*(<[^>]*>|[^\s)]*)(?:\s+"[^"]*")?\s*\)`)
	refDefRE     = regexp.MustCompile(`^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)`)
	htmlAnchorRE = regexp.MustCompile(`(?i)<a\s[^>]*(?:name|id)="([^"]+)"`)
)

// mdHeading is an ATX heading: its level, its text as written, and the
// line it is on (1-based).
type mdHeading struct {
	level int
	text  string
	line  int
}

func mdHeadings(text string) []mdHeading {
	var hs []mdHeading
	for i, l := range mdProse(text) {
		if m := headingRE.FindStringSubmatch(l); m != nil {
			hs = append(hs, mdHeading{level: len(m[1]), text: m[2], line: i + 1})
		}
	}
	return hs
}

// mdAnchors returns the anchors a Markdown file offers, as GitHub makes
// them: each heading's slug (a repeated one gets -1, -2, …) and the name
// or id of an HTML anchor.
func mdAnchors(text string) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	for _, h := range mdHeadings(text) {
		s := githubSlug(h.text)
		if n := seen[s]; n > 0 {
			anchors[s+"-"+strconv.Itoa(n)] = true
		} else {
			anchors[s] = true
		}
		seen[s]++
	}
	for _, m := range htmlAnchorRE.FindAllStringSubmatch(text, -1) {
		anchors[m[1]] = true
	}
	return anchors
}

// githubSlug is the anchor GitHub gives a heading: its text as rendered
// (code spans and links reduced to their text, emphasis dropped), in lower
// case, with every character but letters, digits, marks, '_', '-' and the
// space removed (dashes other than '-' and all other punctuation too), and
// each space made a '-'.
func githubSlug(heading string) string {
	s := inlineLinkRE.ReplaceAllString(heading, "$1")
	s = codeSpanRE.ReplaceAllString(s, "$1")
	s = strings.ReplaceAll(s, "*", "")
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// mdLink is a link of a Markdown file: its target as written and its line.
type mdLink struct {
	target string
	line   int
}

// mdLinks returns the links and images of a Markdown text outside code
// (fenced blocks and code spans), and the targets of reference definitions.
func mdLinks(text string) []mdLink {
	var links []mdLink
	for i, l := range mdProse(text) {
		l = codeSpanRE.ReplaceAllString(l, "")
		for _, m := range inlineLinkRE.FindAllStringSubmatch(l, -1) {
			links = append(links, mdLink{target: strings.Trim(m[2], "<>"), line: i + 1})
		}
		if m := refDefRE.FindStringSubmatch(l); m != nil {
			links = append(links, mdLink{target: strings.Trim(m[1], "<>"), line: i + 1})
		}
	}
	return links
}

// mdSection returns the text under the first heading whose text is
// heading, up to the next heading of the same or a higher level.
func mdSection(t *testing.T, text, heading string) string {
	t.Helper()
	lines := strings.Split(text, "\n")
	hs := mdHeadings(text)
	for i, h := range hs {
		if h.text != heading {
			continue
		}
		end := len(lines)
		for _, next := range hs[i+1:] {
			if next.level <= h.level {
				end = next.line - 1
				break
			}
		}
		return strings.Join(lines[h.line:end], "\n")
	}
	t.Fatalf("README.md and docs/*.md have no heading %q", heading)
	return ""
}

// mdTableRows returns the cells of the rows of the first table in text,
// without its header and delimiter rows, each cell trimmed.
func mdTableRows(text string) [][]string {
	var rows [][]string
	inTable := false
	for _, l := range mdProse(text) {
		t := strings.TrimSpace(l)
		if !strings.HasPrefix(t, "|") {
			if inTable {
				break
			}
			continue
		}
		inTable = true
		cells := strings.Split(strings.Trim(t, "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		rows = append(rows, cells)
	}
	if len(rows) < 2 {
		return nil
	}
	return rows[2:]
}

// docFiles are the pages a user reads: README.md, then docs/*.md in
// name order. The README is an overview, and the snippets and recipes the
// tests run live wherever their topic does, so every test of a snippet
// looks for it in all of them. docs/spec/ is the provider's text, not ours.
func docFiles(t *testing.T) []string {
	t.Helper()
	docs, err := filepath.Glob(filepath.Join("docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{"README.md"}, docs...)
}

// docsText returns the text of docFiles, joined, for the tests that look
// for a line or a section wherever it lives.
func docsText(t *testing.T) string {
	t.Helper()
	var all strings.Builder
	for _, f := range docFiles(t) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		all.Write(b)
		all.WriteString("\n")
	}
	return all.String()
}

// docBlocks returns the fenced code blocks of docFiles, each naming its
// file and its line there.
func docBlocks(t *testing.T) []mdBlock {
	t.Helper()
	var blocks []mdBlock
	for _, f := range docFiles(t) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, block := range mdBlocks(string(b)) {
			block.file = filepath.ToSlash(f)
			blocks = append(blocks, block)
		}
	}
	return blocks
}

// markdownFiles returns the Markdown files of the repository (the test
// runs in its root), test fixtures and hidden directories left out.
func markdownFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(d.Name(), ".md") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}
