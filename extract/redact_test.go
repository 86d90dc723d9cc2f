package extract

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"net/url"
	"strings"
	"testing"
)

const redactKey = "Sk/LIVE+key=7q-ECHO-5d"

// forms are spellings of redactKey a server may echo.
func forms() []string {
	var u, p strings.Builder
	for _, r := range redactKey {
		fmt.Fprintf(&u, `\u%04x`, r)
	}
	for _, c := range []byte(redactKey) {
		fmt.Fprintf(&p, "%%%02X", c)
	}
	return []string{redactKey, strings.ReplaceAll(redactKey, "/", `\/`), u.String(), p.String(), url.QueryEscape(redactKey),
		base64.StdEncoding.EncodeToString([]byte(redactKey)), base64.RawURLEncoding.EncodeToString([]byte(redactKey))}
}

// FuzzRedact: after redaction no form of the key is left, redacting again
// changes nothing, and a text with no backslash, no percent sign and none
// of the forms' first bytes comes out as it went in.
func FuzzRedact(f *testing.F) {
	for _, form := range forms() {
		f.Add("before " + form + " after")
	}
	f.Add(`{"name":"Rotterdam","url":"https:\/\/example.com\/a%20b"}`)
	f.Add("Basic " + base64.StdEncoding.EncodeToString([]byte("user:"+redactKey)))
	k, err := NewKey(redactKey)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, text string) {
		out := k.RedactString(text)
		for _, form := range forms() {
			if strings.Contains(out, form) {
				t.Fatalf("%q left in %q", form, out)
			}
		}
		if again := k.RedactString(out); again != out {
			t.Fatalf("redacting twice changes %q to %q", out, again)
		}
		plain := true
		for i := 0; i < len(text); i++ {
			plain = plain && !k.red.starts[text[i]]
		}
		if plain && out != text {
			t.Fatalf("%q without the key became %q", text, out)
		}
	})
}

// BenchmarkRedact measures redaction of a 6 KB tracking answer against
// the plain replacement it replaced, in the same run: a body without the
// key and without escapes, and one written by PHP (every "/" as "\/"),
// which takes the regexp.
func BenchmarkRedact(b *testing.B) {
	k, err := NewKey(redactKey)
	if err != nil {
		b.Fatal(err)
	}
	body := []byte(strings.Repeat(`{"location":{"name":"Rotterdam","locode":"NLRTM","country":"Netherlands","timezone":"Europe/Amsterdam"},"date":"2026-01-05T12:00:00Z","isActual":true},`, 40))
	php := bytes.ReplaceAll(body, []byte("/"), []byte(`\/`))
	plainOnly := func(b []byte) []byte {
		if !bytes.Contains(b, []byte(redactKey)) {
			return b
		}
		return bytes.ReplaceAll(b, []byte(redactKey), []byte(redacted))
	}
	for _, c := range []struct {
		name string
		body []byte
		fn   func([]byte) []byte
	}{
		{"plain-only/clean", body, plainOnly},
		{"every-form/clean", body, k.redact},
		{"plain-only/php", php, plainOnly},
		{"every-form/php", php, k.redact},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.body)))
			for b.Loop() {
				c.fn(c.body)
			}
		})
	}
}
