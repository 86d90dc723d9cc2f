package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// none stands for a value that does not exist (no ETA at that horizon).
const none = "–"

// hours renders hours with one decimal.
func hours(v float64) string {
	return strconv.FormatFloat(roundTo(v, 1), 'f', 1, 64)
}

// signedHours renders a bias with its sign: +3.7, -5.9, 0.0.
func signedHours(v float64) string {
	v = roundTo(v, 1)
	if v == 0 {
		return "0.0"
	}
	return fmt.Sprintf("%+.1f", v)
}

// hoursCI renders the 95 % interval of a non-negative quantity in hours:
// (6.1–13.3); "" when there is none.
func hoursCI(i Interval) string {
	if !i.Known {
		return ""
	}
	if roundTo(i.Lo, 1) < 0 {
		return signedHoursCI(i)
	}
	return "(" + hours(i.Lo) + "–" + hours(i.Hi) + ")"
}

// signedHoursCI renders the 95 % interval of a bias or a difference with
// its signs: (-0.9 to +5.9); "" when there is none. "to" rather than a
// dash, which would read as a minus.
func signedHoursCI(i Interval) string {
	if !i.Known {
		return ""
	}
	return "(" + signedHours(i.Lo) + " to " + signedHours(i.Hi) + ")"
}

// percentCI renders the 95 % interval of a share: (66–93%); "" when
// there is none.
func percentCI(i Interval) string {
	if !i.Known {
		return ""
	}
	return "(" + strings.TrimSuffix(percent(i.Lo), "%") + "–" + percent(i.Hi) + ")"
}

// percent renders a share (0 to 1) as a whole percentage.
func percent(share float64) string {
	return strconv.FormatFloat(roundTo(share*100, 0), 'f', 0, 64) + "%"
}

// roundTo rounds half away from zero at d decimals, and never returns -0.
// v is first snapped to 9 decimals: DuckDB sums in parallel, in no fixed
// order, so a mean of exactly 1.75 comes back as 1.7499999999999991 or
// 1.7500000000000009 from one query to the next, and without the snap the
// same warehouse would print +1.7 once and +1.8 the next time.
func roundTo(v float64, d int) float64 {
	p := math.Pow(10, float64(d))
	r := math.Round(math.Round(v*1e9)/1e9*p) / p
	if r == 0 {
		return 0
	}
	return r
}

// count renders an integer with a comma every three digits: 12,345.
func count[T int | int64](n T) string {
	s := strconv.FormatInt(int64(n), 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// stamp renders an observation time in UTC to the minute.
func stamp(t time.Time) string { return t.UTC().Format("2006-01-02 15:04") }

// plural renders n and the noun, in the plural unless n is 1.
func plural[T int | int64](n T, one, many string) string {
	if n == 1 {
		return count(n) + " " + one
	}
	return count(n) + " " + many
}
