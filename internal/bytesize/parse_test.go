package bytesize

import (
	"strings"
	"testing"
)

func TestParseReadsSizes(t *testing.T) {
	for in, want := range map[string]int64{
		"128MB": 128e6, "1GiB": 1 << 30, "512 KB": 512e3, "1.5GB": 1.5e9, "100b": 100, " 64MiB ": 64 << 20,
		"1TB": 1e12, "2tib": 2 << 40, "4096": 4096, "0": 0, "0GB": 0, "400KB": 400e3,
	} {
		if got, err := Parse(in); err != nil || got != want {
			t.Errorf("Parse(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
}

func TestParseRefusesWhatIsNotASize(t *testing.T) {
	for _, in := range []string{"", "80%", "MB", "12 parsecs", "-1MB", "lots", "NaN", "Inf", "1e3MB", "0x10", "+5GB", "1_000", "9EiB", "99999999TB", "1.2.3GB"} {
		got, err := Parse(in)
		if err == nil {
			t.Errorf("Parse(%q) = %d, want refused", in, got)
			continue
		}
		if !strings.Contains(err.Error(), "512MiB") || !strings.Contains(err.Error(), in) {
			t.Errorf("Parse(%q): %v: want the input and the form", in, err)
		}
	}
}

// FuzzParse: Parse never panics, never returns a negative size, and what
// it takes it takes again in the units it names.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"512MiB", "1.5GB", " 64 kb ", "0", "-1", "NaN", "1e308TB", "12 parsecs"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := Parse(s)
		if err != nil {
			return
		}
		if n < 0 {
			t.Fatalf("Parse(%q) = %d", s, n)
		}
		if again, err := Parse(strings.ToUpper(s)); err != nil || again != n {
			t.Fatalf("Parse(%q) = %d but Parse(%q) = %d, %v", s, n, strings.ToUpper(s), again, err)
		}
	})
}

// TestFormat: sizes read as people write them, and back.
func TestFormat(t *testing.T) {
	for n, want := range map[int64]string{
		64 << 20: "64MiB", 1 << 30: "1GiB", 1536 << 20: "1536MiB", 1000: "1000B", 0: "0B",
		120_000_000: "114.4MiB", 10<<20 + 1: "10.0MiB", 3 << 40: "3TiB",
	} {
		if got := Format(n); got != want {
			t.Errorf("Format(%d) = %q, want %q", n, got, want)
		}
		if n%1024 == 0 {
			if back, err := Parse(Format(n)); err != nil || back != n {
				t.Errorf("Parse(Format(%d)) = %d, %v", n, back, err)
			}
		}
	}
}
