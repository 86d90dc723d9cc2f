package bytesize

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// units are the suffixes Parse takes, longest first so that "MiB" is not
// read as "B": KB, MB, GB, TB of 1000; KiB, MiB, GiB, TiB of 1024; B.
var units = []struct {
	suffix string
	n      float64
}{
	{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30}, {"tib", 1 << 40},
	{"kb", 1e3}, {"mb", 1e6}, {"gb", 1e9}, {"tb", 1e12}, {"b", 1},
}

// Form says what Parse takes, for errors that teach.
const Form = "a size such as 512MiB, 2GiB, 800MB or a number of bytes"

// Parse reads a size: a number, optionally with a decimal fraction, then
// optionally one of the units (any case, spaces allowed around it); no
// unit means bytes. Negative, not-a-number and sizes beyond 4 EiB are
// refused. The bytes are rounded down.
func Parse(s string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	num, mult := t, 1.0
	for _, u := range units {
		if n, ok := strings.CutSuffix(t, u.suffix); ok {
			num, mult = strings.TrimSpace(n), u.n
			break
		}
	}
	n, err := strconv.ParseFloat(num, 64)
	if err != nil || num == "" || strings.ContainsAny(num, "+-_xXpPeEiInN") || !(n >= 0) || n*mult > math.MaxInt64/2 {
		return 0, fmt.Errorf("%q: want %s", s, Form)
	}
	return int64(n * mult), nil
}

// Format writes a size for people in the largest binary unit that keeps
// it whole, or with one decimal above 10 of it: 64MiB, 1.5GiB, 1000B.
// Parse reads it back to the same bytes when it is whole.
func Format(n int64) string {
	for _, u := range []struct {
		name string
		n    int64
	}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		switch {
		case n >= u.n && n%u.n == 0:
			return fmt.Sprintf("%d%s", n/u.n, u.name)
		case n >= 10*u.n:
			return fmt.Sprintf("%.1f%s", float64(n)/float64(u.n), u.name)
		}
	}
	return fmt.Sprintf("%dB", n)
}
