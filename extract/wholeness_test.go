package extract

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func wholenessOf(text []byte, cuts int) string {
	var s wholeness
	for len(text) > 0 {
		n := min(len(text), max(cuts, 1))
		_, _ = s.Write(text[:n])
		text = text[n:]
	}
	return s.broken()
}

// FuzzWholeness: a body json.Valid takes is whole, in any chunks; and an
// array, object or string cut anywhere before its end is not: what the
// client asks again when a body too large to hold is cut short.
func FuzzWholeness(f *testing.F) {
	for _, s := range []string{`{"a":[1,2,{"b":"x\"]}"}]}`, `[]`, `"str\\"`, ` {"k": "\u005d"} `, `[[[]]]`, `{"a":1}{}`, `]`, `12`, ``} {
		f.Add(s, 3)
	}
	f.Fuzz(func(t *testing.T, text string, cuts int) {
		b := []byte(text)
		if cuts < 1 || cuts > 1<<16 {
			cuts = 1
		}
		why := wholenessOf(b, cuts)
		if json.Valid(b) && why != "" {
			t.Fatalf("%q is valid JSON, judged broken: %s", text, why)
		}
		trimmed := bytes.TrimSpace(b)
		if !json.Valid(trimmed) || len(trimmed) < 2 || !strings.ContainsRune(`{["`, rune(trimmed[0])) {
			return
		}
		for n := 0; n < len(trimmed); n++ {
			if wholenessOf(trimmed[:n], cuts) == "" {
				t.Fatalf("%q cut after %d bytes is judged whole", trimmed, n)
			}
		}
	})
}

func TestWholenessSaysWhatIsWrong(t *testing.T) {
	for text, want := range map[string]string{
		``:                                    "an empty body",
		"  \n":                                "an empty body",
		`{"a":"bc`:                            "ends inside a string",
		`{"a":[1,2`:                           "ends with 2 arrays or objects open",
		`{"a":1}]`:                            `more after the JSON value at byte 7`,
		`{"a":1]`:                             `a ']' that closes nothing open at byte 6`,
		`{"a":1} {"b":2}`:                     `more after the JSON value at byte 8`,
		strings.Repeat("[", maxDepth+1):       "nested deeper than 10000",
		"<html><body>Not found</body></html>": `a '<' outside a string at byte 0`,
	} {
		if got := wholenessOf([]byte(text), 2); !strings.Contains(got, want) {
			t.Errorf("%.40q: %q, want it to say %q", text, got, want)
		}
	}
	if got := wholenessOf([]byte(`{"a":"]}\\\"[{"}`), 1); got != "" {
		t.Errorf("brackets and escapes inside a string: %q", got)
	}
}
