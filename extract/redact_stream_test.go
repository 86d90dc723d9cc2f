package extract

import (
	"bytes"
	"encoding/base64"
	"strings"
	"testing"
)

// redactChunks redacts text with the streaming redactor, written in the
// chunks cuts gives (each byte a chunk's length, 0 to 255, cycled; 0 is
// an empty write, and cuts of zeros only leave the rest one chunk).
func redactChunks(t *testing.T, k Key, text []byte, cuts []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	rw := newRedactWriter(k.red, &out)
	for i, c := 0, 0; i < len(text); c++ {
		n := len(text) - i
		if len(cuts) > 0 && c < len(text)+len(cuts) {
			n = min(n, int(cuts[c%len(cuts)]))
		}
		if _, err := rw.Write(text[i : i+n]); err != nil {
			t.Fatal(err)
		}
		i += n
	}
	if err := rw.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// FuzzRedactStream: the streaming redactor, over any key and any text cut
// into any chunks, writes exactly what redact makes of the whole text. A
// body too large to hold is landed as if it had been redacted whole.
func FuzzRedactStream(f *testing.F) {
	for _, form := range forms() {
		f.Add(redactKey, "before "+form+" after "+form+form, []byte{1, 2, 3})
		f.Add(redactKey, form, []byte{0, 1})
		f.Add(redactKey, strings.Repeat("x", 50)+form, []byte{47, 5})
	}
	f.Add(redactKey, "Basic "+base64.StdEncoding.EncodeToString([]byte("user:"+redactKey)), []byte{7})
	f.Add("é€𝄞/\"\\key", `\u00e9\u20AC\ud834\udd1e\/\"\\key and %C3%A9%E2%82%AC%F0%9D%84%9E/"\key`, []byte{3, 11})
	f.Add("abab", "abababab ababab", []byte{1})
	f.Add("[REDACTED]", "[[REDACTED]REDACTED]", []byte{2})
	f.Fuzz(func(t *testing.T, key, text string, cuts []byte) {
		k, err := NewKey(key)
		if err != nil {
			t.Skip()
		}
		want := k.red.redact([]byte(text))
		if got := redactChunks(t, k, []byte(text), cuts); !bytes.Equal(got, want) {
			t.Fatalf("key %q, text %q in chunks %v:\nstreamed %q\nwhole    %q", key, text, cuts, got, want)
		}
	})
}

// A body of megabytes written in the client's chunks, with every form of
// the key straddling every chunk boundary at every offset, comes out of
// the streaming redactor as redact makes it, and with no form left.
func TestRedactStreamAcrossChunkBoundaries(t *testing.T) {
	k, err := NewKey(redactKey)
	if err != nil {
		t.Fatal(err)
	}
	var body bytes.Buffer
	chunk := 4096
	for _, form := range forms() {
		for off := 0; off <= len(form); off++ {
			pad := chunk - body.Len()%chunk - off
			if pad < 0 {
				pad += chunk
			}
			body.WriteString(strings.Repeat("y", pad))
			body.WriteString(form)
		}
	}
	text := body.Bytes()
	got := k.red.redact(bytes.Clone(text))
	for _, n := range []int{chunk, chunk - 1, 1 << 16} {
		cuts := []byte{}
		for m := n; m > 0; m -= min(m, 255) {
			cuts = append(cuts, byte(min(m, 255)))
		}
		if streamed := redactChunks(t, k, text, cuts); !bytes.Equal(streamed, k.red.redact(text)) {
			t.Fatalf("chunks of %d bytes: the streamed redaction differs from the whole", n)
		}
	}
	for _, form := range forms() {
		if bytes.Contains(got, []byte(form)) {
			t.Errorf("%q left", form)
		}
	}
}
