package extract_test

import (
	"bytes"
	"compress/flate"
	"compress/zlib"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/etalake/etalake/extract"
	"github.com/etalake/etalake/response"
)

// coded answers every request 200 with body and the headers given.
type coded struct {
	header map[string]string
	body   []byte
	asked  atomic.Int64
}

func (h *coded) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.asked.Add(1)
	for k, v := range h.header {
		w.Header().Set(k, v)
	}
	_, _ = w.Write(h.body)
}

// portAnswer is a DCSA port schedule of one vessel named name.
func portAnswer(name string) string {
	return `[{"location":{"UNLocationCode":"NLRTM"},"vesselSchedules":[{"vessel":{"vesselIMONumber":"9321483","name":"` + name + `"},"isDummyVessel":false,"timestamps":[]}]}]`
}

// askOnce asks the port schedule of NLRTM of a DCSA provider h, returning
// what landed and the call's error.
func askOnce(t *testing.T, h http.Handler) ([]*response.Received, error) {
	t.Helper()
	c, raws := pagedClient(t, h, extract.Unlimited, nil)
	err := keep(raws, c.PortSchedule(t.Context(), "NLRTM"))
	return *raws, err
}

// RFC 8259 §8.1: "In the interests of interoperability, implementations
// that parse JSON texts MAY ignore the presence of a byte order mark
// rather than treating it as an error." A body behind a BOM is one
// answer, bought once, landed without the mark.
func TestAByteOrderMarkIsIgnored(t *testing.T) {
	h := &coded{header: map[string]string{"Content-Type": "application/json"}, body: append([]byte{0xEF, 0xBB, 0xBF}, portAnswer("Zaandam")...)}
	got, err := askOnce(t, h)
	if err != nil {
		t.Fatalf("err = %v, want the answer", err)
	}
	if h.asked.Load() != 1 || len(got) != 1 || got[0].Broken != "" {
		t.Fatalf("asked %d, landed %d (broken %q): want one whole answer", h.asked.Load(), len(got), got[0].Broken)
	}
	if !bytes.Equal(got[0].Body, []byte(portAnswer("Zaandam"))) {
		t.Errorf("landed %q: want the JSON text without the mark", got[0].Body)
	}
}

// A charset other than UTF-8 is transcoded (RFC 8259 §8.1: "JSON text
// exchanged between systems that are not part of a closed ecosystem MUST
// be encoded using UTF-8"): what lands is UTF-8. One the client does not
// know is refused visibly, naming it, and not asked again.
func TestACharsetIsTranscodedOrRefusedByName(t *testing.T) {
	latin1 := []byte(portAnswer("Zaandam \xe9t\xe9 \xb0"))
	h := &coded{header: map[string]string{"Content-Type": "application/json; charset=ISO-8859-1"}, body: latin1}
	got, err := askOnce(t, h)
	if err != nil {
		t.Fatalf("err = %v", err)
	}
	if len(got) != 1 || !bytes.Equal(got[0].Body, []byte(portAnswer("Zaandam été °"))) {
		t.Errorf("landed %q: want the name in UTF-8", got[0].Body)
	}

	h = &coded{header: map[string]string{"Content-Type": "application/json; charset=x-klingon"}, body: []byte(portAnswer("Zaandam"))}
	got, err = askOnce(t, h)
	if !errors.Is(err, extract.ErrBroken) || !strings.Contains(err.Error(), `"x-klingon"`) {
		t.Fatalf("err = %v, want ErrBroken naming the charset", err)
	}
	if h.asked.Load() != 1 || len(got) != 1 || !strings.Contains(got[0].Broken, "x-klingon") || got[0].Retried {
		t.Errorf("asked %d, landed %+v: want one answer, landed broken naming the charset, not asked again", h.asked.Load(), got)
	}
}

// RFC 9110 §8.4.1.2: "The "deflate" coding is a "zlib" data format
// [RFC1950] containing a "deflate" compressed data stream [RFC1951]".
// It is decoded (and the raw stream some servers send too); a coding the
// client does not know is named, and not asked again.
func TestAContentCodingIsDecodedOrNamed(t *testing.T) {
	want := []byte(portAnswer("Zaandam"))
	var zl, raw bytes.Buffer
	zw := zlib.NewWriter(&zl)
	_, _ = zw.Write(want)
	_ = zw.Close()
	fw, _ := flate.NewWriter(&raw, flate.BestCompression)
	_, _ = fw.Write(want)
	_ = fw.Close()
	for name, body := range map[string][]byte{"zlib": zl.Bytes(), "raw deflate": raw.Bytes()} {
		t.Run(name, func(t *testing.T) {
			h := &coded{header: map[string]string{"Content-Type": "application/json", "Content-Encoding": "deflate"}, body: body}
			got, err := askOnce(t, h)
			if err != nil {
				t.Fatalf("err = %v", err)
			}
			if h.asked.Load() != 1 || len(got) != 1 || !bytes.Equal(got[0].Body, want) {
				t.Errorf("asked %d, landed %q: want the decoded answer, bought once", h.asked.Load(), got[0].Body)
			}
		})
	}
	h := &coded{header: map[string]string{"Content-Type": "application/json", "Content-Encoding": "br"}, body: []byte("\x1b\x00")}
	got, err := askOnce(t, h)
	if !errors.Is(err, extract.ErrBroken) || !strings.Contains(err.Error(), `"br"`) {
		t.Fatalf("err = %v, want ErrBroken naming the coding", err)
	}
	if h.asked.Load() != 1 || len(got) != 1 {
		t.Errorf("asked %d: want one ask, the coding will not change", h.asked.Load())
	}
}
