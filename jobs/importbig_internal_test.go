package jobs

import (
	"bytes"
	"testing"
)

// FuzzTrimWriter: a line streamed to a file is trimmed exactly as one held
// in memory (bytes.TrimSpace), whatever the chunks it is read in: the
// same line imported with a larger --max-body is the same body, the same
// response id.
func FuzzTrimWriter(f *testing.F) {
	for _, s := range []string{"  {\"a\":1} \r\n", "\u00a0x\u2028", "\t\n", "x\xc2", "\xc2\xa0\xe2\x80\xa8y \xe3\x80\x80", "a b  c", ""} {
		f.Add(s, []byte{1, 2})
	}
	f.Fuzz(func(t *testing.T, text string, cuts []byte) {
		var out bytes.Buffer
		tw := &trimWriter{w: &out}
		b := []byte(text)
		for c := 0; len(b) > 0; c++ {
			n := len(b)
			if len(cuts) > 0 && c < len(text)+len(cuts) {
				n = min(n, int(cuts[c%len(cuts)]))
			}
			_, _ = tw.Write(b[:n])
			b = b[n:]
		}
		if err := tw.Close(); err != nil {
			t.Fatal(err)
		}
		if want := bytes.TrimSpace([]byte(text)); !bytes.Equal(out.Bytes(), want) || tw.n != int64(len(want)) {
			t.Fatalf("%q in chunks %v: %q (%d bytes counted), want %q", text, cuts, out.Bytes(), tw.n, want)
		}
	})
}
