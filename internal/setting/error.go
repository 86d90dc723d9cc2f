package setting

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Error is a setting that does not hold: the configuration's field, the
// value refused, and what the field takes.
type Error struct {
	// Field is the field of the configuration, PageSize, or a path into
	// it, Refresh.Tiers.
	Field string
	// Value is the value refused, as written; "" when the rule is about
	// the field as a whole (then Want says what is wrong).
	Value string
	// Want is what the field takes, and why when that helps. Another
	// field it is tied to is named in braces, {ScheduleAPI}, so that a
	// caller can name that one its own way too (Say).
	Want string
}

// Error words the error with the fields' own names.
func (e *Error) Error() string { return e.Say(func(field string) string { return field }) }

// Say words the error with each field named by name: the command line
// names PageSize "ETALAKE_PAGE_SIZE (--page-size)".
func (e *Error) Say(name func(field string) string) string {
	want := e.Want
	for {
		i := strings.Index(want, "{")
		j := strings.Index(want[max(i, 0):], "}")
		if i < 0 || j < 0 {
			break
		}
		want = want[:i] + name(want[i+1:i+j]) + want[i+j+1:]
	}
	switch {
	case e.Value != "":
		return name(e.Field) + " " + e.Value + ": want " + want
	case strings.Contains(e.Want, "{"+e.Field+"}"):
		return want
	}
	return name(e.Field) + ": " + want
}

// Refuse is the error of field's value v, which the field does not take:
// want says what it takes. v is written as fmt.Sprint writes it: quote a
// string where its ends matter.
func Refuse(field string, v any, want string) *Error {
	return &Error{Field: field, Value: format(v), Want: want}
}

// Wrong is the error of a rule about field as a whole: what is wrong, and
// what is wanted.
func Wrong(field, format string, args ...any) *Error {
	return &Error{Field: field, Want: fmt.Sprintf(format, args...)}
}

// Int checks that n is from lo to hi.
func Int(field string, n, lo, hi int) error {
	if n < lo || n > hi {
		return Refuse(field, n, fmt.Sprintf("%d to %d", lo, hi))
	}
	return nil
}

// Duration checks that d is from lo to hi; want says the range as a
// person says it ("1s to 1h, such as 60s").
func Duration(field string, d, lo, hi time.Duration, want string) error {
	if d < lo || d > hi {
		return Refuse(field, d, want)
	}
	return nil
}

// Within puts the field of err's *Error under the field of the struct
// that holds it: Tiers becomes Refresh.Tiers. Other errors pass as they
// are.
func Within(parent string, err error) error {
	var e *Error
	if !errors.As(err, &e) {
		return err
	}
	inner := *e
	inner.Field = parent + "." + e.Field
	inner.Want = strings.ReplaceAll(e.Want, "{", "{"+parent+".")
	return &inner
}

// First is the first error of errs that is not nil, or nil: a Validate
// checks its rules in order and says the first that fails.
func First(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func format(v any) string { return fmt.Sprint(v) }
