package jobs

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// checkRanges checks that ranges cut data into consecutive whole lines of
// at most partBytes (or one line each), each naming the line it starts at.
func checkRanges(t *testing.T, data []byte, partBytes int64, ranges []ImportSource) {
	t.Helper()
	if len(ranges) == 0 {
		t.Fatal("no range")
	}
	var at int64
	for i, r := range ranges {
		end := r.End
		if i == len(ranges)-1 {
			if r.End != 0 {
				t.Fatalf("last range ends at %d; want 0, the end of the file", r.End)
			}
			end = int64(len(data))
		}
		if r.Offset != at || end <= r.Offset && len(data) > 0 {
			t.Fatalf("range %d is %d..%d, after %d: want consecutive, non-empty ranges", i, r.Offset, end, at)
		}
		if want := bytes.Count(data[:r.Offset], []byte("\n")) + 1; r.Line != want {
			t.Fatalf("range %d starts at byte %d, line %d; want line %d", i, r.Offset, r.Line, want)
		}
		chunk := data[r.Offset:end]
		if i < len(ranges)-1 && !bytes.HasSuffix(chunk, []byte("\n")) {
			t.Fatalf("range %d (%q) ends inside a line", i, chunk)
		}
		if int64(len(chunk)) > partBytes && bytes.Count(bytes.TrimSuffix(chunk, []byte("\n")), []byte("\n")) > 0 && i < len(ranges)-1 {
			t.Fatalf("range %d holds %d bytes over several lines; want at most %d", i, len(chunk), partBytes)
		}
		at = end
	}
	if at != int64(len(data)) {
		t.Fatalf("ranges end at %d of %d bytes", at, len(data))
	}
}

func writeFile(t testing.TB, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLineRangesCutBetweenLines(t *testing.T) {
	data := []byte("aaaa\nbb\ncccccccccccccccc\nd\n\ne\nfff")
	for _, partBytes := range []int64{1, 3, 5, 8, 10, 30, 1000} {
		p := writeFile(t, t.TempDir(), "x.ndjson", data)
		got, err := lineRanges(p, partBytes)
		if err != nil {
			t.Fatal(err)
		}
		checkRanges(t, data, partBytes, got)
	}
}

func TestPlanImportPacksFilesAndCutsLargeOnes(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "1.json", []byte(strings.Repeat("x", 40)))
	writeFile(t, dir, "2.json", []byte(strings.Repeat("y", 40)))
	writeFile(t, dir, "3.json", []byte(strings.Repeat("z", 150))) // larger than a part: alone
	big := []byte(strings.Repeat(strings.Repeat("l", 29)+"\n", 10))
	writeFile(t, dir, "4.ndjson", big) // 300 bytes: cut in three
	writeFile(t, dir, "5.jsonl", []byte("{}\n"))

	parts, err := PlanImport([]string{dir}, 100)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for i, p := range parts {
		last := i == len(parts)-1
		if p.Index != i+1 || p.Of != len(parts) || p.Last != last || p.Finish != last || len(p.Paths) != 1 {
			t.Fatalf("part %d: index %d of %d, last %v, finish %v, paths %v", i, p.Index, p.Of, p.Last, p.Finish, p.Paths)
		}
		var names []string
		for _, s := range p.Sources {
			names = append(names, strings.TrimPrefix(s.String(), dir+string(filepath.Separator)))
		}
		got = append(got, strings.Join(names, " + "))
	}
	want := []string{
		"1.json + 2.json",
		"3.json",
		"4.ndjson from line 1 (bytes 0–90)",
		"4.ndjson from line 4 (bytes 90–180)",
		"4.ndjson from line 7 (bytes 180–270)",
		"4.ndjson from line 10 (bytes 270–end) + 5.jsonl",
		"", // the finishing part: the mirror and the analytics
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("parts:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	one, err := PlanImport([]string{dir}, 0)
	if err != nil || len(one) != 1 || len(one[0].Sources) != 5 || !one[0].Last || one[0].Finish {
		t.Fatalf("no part size: %+v, %v; want one part of the five files", one, err)
	}
}

// FuzzLineRanges: whatever the bytes and the part size, the ranges cover
// the file exactly, in whole lines, each naming its first line.
func FuzzLineRanges(f *testing.F) {
	f.Add([]byte("a\nbb\nccc\n"), uint16(2))
	f.Add([]byte("\n\n\n"), uint16(1))
	f.Add([]byte("no newline at all"), uint16(3))
	f.Add([]byte{}, uint16(1))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte, size uint16) {
		partBytes := int64(size)%64 + 1
		p := writeFile(t, dir, "f.ndjson", data)
		got, err := lineRanges(p, partBytes)
		if err != nil {
			t.Fatal(err)
		}
		checkRanges(t, data, partBytes, got)
	})
}
