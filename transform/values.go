package transform

import (
	"math"
	"time"
)

// Row values are kept compactly until Records: timestamps as microseconds
// since the Unix epoch (UTC), nullable values as a value and a flag, and
// nullable strings as strings where "" means null (the wire types cannot
// tell an absent or null string from an empty one).

// optTime is a nullable timestamp in microseconds.
type optTime struct {
	us int64
	ok bool
}

// optInt is a nullable integer.
type optInt struct {
	v  int64
	ok bool
}

// optFloat is a nullable float.
type optFloat struct {
	v  float64
	ok bool
}

// optBool is a nullable boolean.
type optBool struct {
	v, ok bool
}

// maxMicroSeconds bounds the seconds whose microseconds fit an int64.
const maxMicroSeconds = math.MaxInt64/1_000_000 - 1

// micros is t in microseconds since the epoch, truncated; ok is false when
// t is too far from the epoch to be a timestamp[us].
func micros(t time.Time) (int64, bool) {
	if s := t.Unix(); s > maxMicroSeconds || s < -maxMicroSeconds {
		return 0, false
	}
	return t.UnixMicro(), true
}

// timeOf is the nullable timestamp of t (nil, or out of range: null).
func timeOf(t *time.Time) optTime {
	if t == nil {
		return optTime{}
	}
	us, ok := micros(*t)
	return optTime{us: us, ok: ok}
}

// microsPerDay is the length of a day in microseconds.
const microsPerDay = 86_400_000_000

// dayOf is the UTC date of a timestamp, in days since the epoch (date32).
func dayOf(us int64) int32 {
	d := us / microsPerDay
	if us%microsPerDay < 0 {
		d--
	}
	return int32(d)
}

func intOf(p *int) optInt {
	if p == nil {
		return optInt{}
	}
	return optInt{v: int64(*p), ok: true}
}

func int64Of(p *int64) optInt {
	if p == nil {
		return optInt{}
	}
	return optInt{v: *p, ok: true}
}

func boolOf(p *bool) optBool {
	if p == nil {
		return optBool{}
	}
	return optBool{v: *p, ok: true}
}

func floatOf(p *float64) optFloat {
	if p == nil {
		return optFloat{}
	}
	return optFloat{v: *p, ok: true}
}

// deref is the string p points to, "" for nil (null).
func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
