package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
)

// ConsumptionPeriod is a credit period of one product (service.md §2.1).
//
// The spec names the fields but not their types, so decoding is lenient: a
// count may be a JSON number or a numeric string, a time may be RFC 3339, a
// bare date or epoch seconds/milliseconds, a flag may be a boolean, 0/1 or
// "true"/"false", and member names match regardless of case, "_" and "-"
// (creditsInitial, credits_initial). A member that is absent or null stays
// nil. Encoding is canonical: numbers, RFC 3339 UTC and booleans.
type ConsumptionPeriod struct {
	CreditsInitial *int64     `json:"creditsInitial"`
	Credits        *int64     `json:"credits"`
	PeriodStart    *time.Time `json:"periodStart"`
	PeriodEnd      *time.Time `json:"periodEnd"`
	Expired        *bool      `json:"expired"`
}

// Used is the number of credits consumed in the period, when both counts are
// known.
func (p ConsumptionPeriod) Used() (int64, bool) {
	if p.CreditsInitial == nil || p.Credits == nil {
		return 0, false
	}
	return *p.CreditsInitial - *p.Credits, true
}

// UnmarshalJSON implements the lenient decoding described on the type.
func (p *ConsumptionPeriod) UnmarshalJSON(b []byte) error {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(b, &members); err != nil {
		return err
	}
	if members == nil {
		return fmt.Errorf("consumption period: want an object, got null")
	}
	var out ConsumptionPeriod
	for name, raw := range members {
		if isAbsent(raw) {
			continue
		}
		var err error
		switch foldName(name) {
		case "creditsinitial":
			out.CreditsInitial, err = lenientInt(raw)
		case "credits":
			out.Credits, err = lenientInt(raw)
		case "periodstart":
			out.PeriodStart, err = lenientTime(raw)
		case "periodend":
			out.PeriodEnd, err = lenientTime(raw)
		case "expired":
			out.Expired, err = lenientBool(raw)
		}
		if err != nil {
			return fmt.Errorf("consumption period member %q: %w", name, err)
		}
	}
	*p = out
	return nil
}

// DecodeCurrentPeriod decodes GET /consumption/current-period. A body without
// any credit count is an error: it cannot tell the balance.
func DecodeCurrentPeriod(body []byte) (*ConsumptionPeriod, error) {
	var p ConsumptionPeriod
	if err := json.Unmarshal(body, &p); err != nil {
		return nil, decodeError("consumption period", err)
	}
	if p.Credits == nil && p.CreditsInitial == nil {
		return nil, decodeError("consumption period", fmt.Errorf("neither credits nor creditsInitial present"))
	}
	return &p, nil
}

// DecodePeriods decodes GET /consumption/periods, whose shape the spec does
// not show. It accepts a JSON array of periods, an object holding such an
// array under any member (periods, data, items, …), or a single period
// object. Periods are returned oldest first.
func DecodePeriods(body []byte) ([]ConsumptionPeriod, error) {
	trimmed := bytes.TrimSpace(body)
	var list []ConsumptionPeriod
	switch {
	case len(trimmed) > 0 && trimmed[0] == '[':
		if err := json.Unmarshal(trimmed, &list); err != nil {
			return nil, decodeError("consumption periods", err)
		}
	case len(trimmed) > 0 && trimmed[0] == '{':
		var members map[string]json.RawMessage
		if err := json.Unmarshal(trimmed, &members); err != nil {
			return nil, decodeError("consumption periods", err)
		}
		if _, isErr := members["errorCode"]; isErr {
			return nil, decodeError("consumption periods", fmt.Errorf("an error body, not periods"))
		}
		var err error
		if list, err = periodArray(members); err != nil {
			return nil, decodeError("consumption periods", err)
		}
		if list == nil {
			p, err := DecodeCurrentPeriod(trimmed)
			if err != nil {
				return nil, decodeError("consumption periods", fmt.Errorf("no array of periods and not a single period"))
			}
			list = []ConsumptionPeriod{*p}
		}
	default:
		return nil, decodeError("consumption periods", fmt.Errorf("want a JSON array or object"))
	}
	sort.SliceStable(list, func(i, j int) bool {
		a, b := list[i].PeriodStart, list[j].PeriodStart
		if a == nil || b == nil {
			return a == nil && b != nil
		}
		return a.Before(*b)
	})
	return list, nil
}

// periodArray finds the periods inside an object whose array member name
// is not documented: the first member (by name) holding an array of objects
// that decode as periods with a start or a count; failing that, an empty
// array named periods, data, items, content or results (no period yet). It
// returns nil when there is neither.
func periodArray(members map[string]json.RawMessage) ([]ConsumptionPeriod, error) {
	var empty bool
	for _, name := range sortedKeys(members) {
		raw := bytes.TrimSpace(members[name])
		if len(raw) == 0 || raw[0] != '[' {
			continue
		}
		var elems []json.RawMessage
		if json.Unmarshal(raw, &elems) != nil {
			continue
		}
		if len(elems) == 0 {
			switch foldName(name) {
			case "periods", "data", "items", "content", "results":
				empty = true
			}
			continue
		}
		var first ConsumptionPeriod
		if json.Unmarshal(elems[0], &first) != nil || (first.PeriodStart == nil && first.Credits == nil && first.CreditsInitial == nil) {
			continue
		}
		var list []ConsumptionPeriod
		if err := json.Unmarshal(raw, &list); err != nil {
			return nil, fmt.Errorf("member %q: %w", name, err)
		}
		return list, nil
	}
	if empty {
		return []ConsumptionPeriod{}, nil
	}
	return nil, nil
}

func sortedKeys(m map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// foldName folds a member name for lenient matching.
func foldName(s string) string {
	s = strings.ToLower(s)
	return strings.NewReplacer("_", "", "-", "").Replace(s)
}

func lenientInt(raw json.RawMessage) (*int64, error) {
	var n json.Number
	if err := json.Unmarshal(raw, &n); err != nil {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return nil, fmt.Errorf("want a number, got %s", clip(raw))
		}
		n = json.Number(strings.TrimSpace(s))
	}
	if i, err := strconv.ParseInt(string(n), 10, 64); err == nil {
		return &i, nil
	}
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return nil, fmt.Errorf("want a whole number, got %s", clip(raw))
	}
	i := int64(f)
	return &i, nil
}

// timeLayouts are tried in order for a string time.
var timeLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05",
	"2006-01-02T15:04:05.999999999",
	"2006-01-02 15:04:05Z07:00",
	"2006-01-02 15:04:05",
	"2006-01-02",
}

func lenientTime(raw json.RawMessage) (*time.Time, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		s = strings.TrimSpace(s)
		for _, layout := range timeLayouts {
			if t, err := time.Parse(layout, s); err == nil {
				t = t.UTC()
				return &t, nil
			}
		}
		return nil, fmt.Errorf("want an ISO 8601 time or date, got %s", clip(raw))
	}
	var f float64
	if err := json.Unmarshal(raw, &f); err != nil {
		return nil, fmt.Errorf("want a time, got %s", clip(raw))
	}
	var t time.Time
	if math.Abs(f) >= 1e11 { // milliseconds since the epoch
		t = time.UnixMilli(int64(f)).UTC()
	} else {
		t = time.Unix(int64(f), 0).UTC()
	}
	return &t, nil
}

func lenientBool(raw json.RawMessage) (*bool, error) {
	var b bool
	if err := json.Unmarshal(raw, &b); err == nil {
		return &b, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		if v, err := strconv.ParseBool(strings.TrimSpace(s)); err == nil {
			return &v, nil
		}
	}
	var n float64
	if err := json.Unmarshal(raw, &n); err == nil && (n == 0 || n == 1) {
		v := n == 1
		return &v, nil
	}
	return nil, fmt.Errorf("want a boolean, got %s", clip(raw))
}

// clip shortens raw JSON for an error message.
func clip(raw []byte) string {
	const max = 40
	if len(raw) > max {
		return string(raw[:max]) + "…"
	}
	return string(raw)
}
