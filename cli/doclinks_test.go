package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestDocLinksResolveInAClone: every relative link of README.md, docs/
// and the other Markdown files leads to a file or directory of the
// repository, and every #anchor to a heading of its page (GitHub's slug)
// — what a reader of a fresh clone, or of the repository's web page,
// follows. Links to the web are not fetched (CI has no network).
func TestDocLinksResolveInAClone(t *testing.T) {
	files := markdownFiles(t)
	for _, want := range []string{"README.md", "docs/design.md", "docs/spec/service.md", "docs/spec/schedules.md"} {
		if !slices.Contains(files, filepath.FromSlash(want)) {
			t.Errorf("%s is missing: the README relies on it", want)
		}
	}
	root, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	links := 0
	for _, f := range files {
		problems, n, err := brokenLinks(root, f)
		if err != nil {
			t.Fatal(err)
		}
		links += n
		for _, p := range problems {
			t.Error(p)
		}
	}
	if links == 0 {
		t.Fatal("no link found in any Markdown file: the parser is broken")
	}
}

// TestDocLinkCheckFindsWhatIsBroken: the check itself, on pages made to
// fail it — a file that is not there, a link out of the repository (as
// the README's ../shared/ links were), an anchor no heading makes.
func TestDocLinkCheckFindsWhatIsBroken(t *testing.T) {
	root := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("docs/spec/service.md", "# Spec\n\n### 2.4 Shipment response (parts shown)\n\n## Events\n\n## Events\n")
	write("README.md", strings.Join([]string{
		"# etalake",
		"## Schedule API profiles and pages",
		"[ok](docs/spec/service.md#24-shipment-response-parts-shown) [dup](docs/spec/service.md#events-1)",
		"[here](#schedule-api-profiles-and-pages) [web](https://example.com/x) [dir](docs/spec)",
		"[gone](docs/missing.md) [out](../shared/DESIGN.md) [no anchor](docs/spec/service.md#events-2)",
		"[no heading](#scheduling) `[code](not/a/link.md)`",
		"```",
		"[in a block](not/a/link.md)",
		"```",
	}, "\n"))
	problems, n, err := brokenLinks(root, filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n != 9 {
		t.Errorf("found %d links, want 9 (code is not a link)", n)
	}
	got := strings.Join(problems, "\n")
	for _, want := range []string{
		"README.md:5: docs/missing.md: no such file",
		"README.md:5: ../shared/DESIGN.md: outside the repository",
		"README.md:5: docs/spec/service.md#events-2: no heading of docs/spec/service.md makes #events-2",
		"README.md:6: #scheduling: no heading of README.md makes #scheduling",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("problems do not say %q; they are:\n%s", want, got)
		}
	}
	if len(problems) != 4 {
		t.Errorf("%d problems, want 4:\n%s", len(problems), got)
	}
}

// TestGitHubSlugs: anchors as GitHub makes them from the headings of these
// pages.
func TestGitHubSlugs(t *testing.T) {
	for heading, want := range map[string]string{
		"2.4 Shipment response (parts shown)":              "24-shipment-response-parts-shown",
		"By port — `GET /schedule/{port_code}` (1 credit)": "by-port--get-scheduleport_code-1-credit",
		"What an event is (`event_key`)":                   "what-an-event-is-event_key",
		"Event codes (for the simulator's journeys)":       "event-codes-for-the-simulators-journeys",
		"Upgrading a warehouse (migration 3)":              "upgrading-a-warehouse-migration-3",
		"From a notebook":                                  "from-a-notebook",
	} {
		if got := githubSlug(heading); got != want {
			t.Errorf("githubSlug(%q) = %q, want %q", heading, got, want)
		}
	}
}

var schemeRE = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)

// brokenLinks checks the links of the Markdown file path (under root): it
// returns a line per broken one, naming the file, the line and the
// target, and how many links it checked.
func brokenLinks(root, path string) (problems []string, n int, err error) {
	if path, err = filepath.Abs(path); err != nil {
		return nil, 0, err
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, 0, err
	}
	rel, err := filepath.Rel(root, path)
	if err != nil {
		rel = path
	}
	rel = filepath.ToSlash(rel)
	for _, l := range mdLinks(string(b)) {
		n++
		if schemeRE.MatchString(l.target) {
			continue // http(s), mailto: not fetched
		}
		problem := func(format string, args ...any) {
			problems = append(problems, fmt.Sprintf("%s:%d: %s: ", rel, l.line, l.target)+fmt.Sprintf(format, args...))
		}
		file, anchor, _ := strings.Cut(l.target, "#")
		target := path
		if file != "" {
			target = filepath.Join(filepath.Dir(path), filepath.FromSlash(file))
			if r, err := filepath.Rel(root, target); err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
				problem("outside the repository (a clone has nothing there)")
				continue
			}
			if _, err := os.Stat(target); err != nil {
				problem("no such file")
				continue
			}
		}
		if anchor == "" {
			continue
		}
		if !strings.HasSuffix(target, ".md") {
			problem("an anchor in a file that is not Markdown")
			continue
		}
		text, err := os.ReadFile(target)
		if err != nil {
			return nil, n, err
		}
		if !mdAnchors(string(text))[anchor] {
			name, _ := filepath.Rel(root, target)
			problem("no heading of %s makes #%s", filepath.ToSlash(name), anchor)
		}
	}
	return problems, n, nil
}
