package extract_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/etalake/etalake/extract"
	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/response"
	"github.com/etalake/etalake/sim/simtest"
	"github.com/etalake/etalake/wire"
)

const spillKey = "sk/SPILL+key=9x-ECHO"

// echoBody is a JSON body of about size bytes that carries spillKey in
// every form a server may echo it, spread over the whole body: as sent,
// JSON-escaped, percent-encoded and in base64.
func echoBody(size int) []byte {
	forms := []string{spillKey, strings.ReplaceAll(spillKey, "/", `\/`), url.QueryEscape(spillKey),
		base64.StdEncoding.EncodeToString([]byte("user:" + spillKey)), strings.ReplaceAll(spillKey, "+", `\u002B`)}
	var b bytes.Buffer
	b.WriteString(`{"echo":[`)
	for i := 0; b.Len() < size; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"%s %s"`, strings.Repeat("p", i%7919), forms[i%len(forms)])
	}
	b.WriteString(`]}`)
	return b.Bytes()
}

// bodyServer answers every request with body: under its Content-Length,
// or chunked (flushed every 100 000 bytes) when chunked is set; cut, when
// set, stops the transfer after that many bytes.
func bodyServer(t *testing.T, body []byte, chunked bool, cut int) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if !chunked {
			w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		}
		send := body
		if cut > 0 {
			send = body[:cut]
		}
		for len(send) > 0 {
			n := min(len(send), 100_000)
			if _, err := w.Write(send[:n]); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			send = send[n:]
		}
		if cut > 0 {
			panic(http.ErrAbortHandler) // the connection breaks
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func spillClient(t *testing.T, url, dir string, maxDecode int64) *extract.Client {
	t.Helper()
	k, err := extract.NewKey(spillKey)
	if err != nil {
		t.Fatal(err)
	}
	c, err := extract.NewClient(extract.Config{TrackingURL: url, Key: k, MaxDecode: maxDecode, SpillDir: dir,
		Retry: extract.RetryPolicy{MaxAttempts: 2, MaxElapsed: time.Minute, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

var spillRef = wire.ShipmentRef{Number: "MSCU1234566", Type: "CT", Sealine: "MSCU"}

// each runs a call to its end, handing each response to land as a job
// lands it: an error of land stops the call, and is returned.
func each(responses extract.Responses, land func(*response.Received) error) ([]*response.Received, error) {
	var got []*response.Received
	for rec, err := range responses {
		if err != nil {
			return got, err
		}
		got = append(got, rec)
		if err := land(rec); err != nil {
			return got, err
		}
	}
	return got, nil
}

// A body larger than MaxDecode, with or without a Content-Length, is
// yielded in a file of the spill directory, never in memory: exactly the
// body redact makes of it whole, with its size and SHA-256, synced; the
// call fails with ErrTooLarge; and the file is gone when the loop goes
// on, unless its consumer moved it away, which keeps it.
func TestABodyLargerThanMaxDecodeIsStreamedToAFileRedacted(t *testing.T) {
	body := echoBody(3 << 20)
	k, _ := extract.NewKey(spillKey)
	want := []byte(k.RedactString(string(body)))
	if bytes.Equal(want, body) {
		t.Fatal("nothing to redact: the test proves nothing")
	}
	for _, chunked := range []bool{false, true} {
		t.Run(fmt.Sprintf("chunked=%v", chunked), func(t *testing.T) {
			dir, keep := t.TempDir(), t.TempDir()
			c := spillClient(t, bodyServer(t, body, chunked, 0).URL, dir, 1<<20)
			seen, err := each(c.Shipment(context.Background(), spillRef), func(raw *response.Received) error {
				if raw.Body != nil || raw.File == nil {
					return fmt.Errorf("body of %d bytes in memory, file %v: want it in a file", len(raw.Body), raw.File)
				}
				got, err := os.ReadFile(raw.File.Path)
				if err != nil {
					return err
				}
				sum := sha256.Sum256(got)
				if !bytes.Equal(got, want) || raw.File.Size != int64(len(want)) || raw.File.SHA256 != hex.EncodeToString(sum[:]) {
					return fmt.Errorf("the file holds %d bytes (size %d, sha %s): want the %d bytes redacted whole", len(got), raw.File.Size, raw.File.SHA256, len(want))
				}
				return nil
			})
			if !errors.Is(err, extract.ErrTooLarge) || len(seen) != 1 || seen[0].Broken != "" {
				t.Fatalf("Shipment: %v (yielded %d, broken %q); want ErrTooLarge, the body yielded whole", err, len(seen), last(seen).Broken)
			}
			if left, _ := os.ReadDir(dir); len(left) != 0 {
				t.Errorf("%d files left in the spill directory: want the body's removed once the loop went on", len(left))
			}

			c = spillClient(t, bodyServer(t, body, chunked, 0).URL, dir, 1<<20)
			if _, err := each(c.Shipment(context.Background(), spillRef), func(raw *response.Received) error {
				return os.Rename(raw.File.Path, filepath.Join(keep, "kept"))
			}); !errors.Is(err, extract.ErrTooLarge) {
				t.Fatal(err)
			}
			if got, err := os.ReadFile(filepath.Join(keep, "kept")); err != nil || !bytes.Equal(got, want) {
				t.Errorf("the body its consumer moved away: %d bytes, %v; want it kept whole", len(got), err)
			}
		})
	}
}

// A body larger than MaxDecode that does not arrive whole — a transfer
// broken off, or JSON that ends inside a string — is a broken answer like
// one held in memory: asked again, each attempt yielded, and its file
// removed each time.
func TestABodyInAFileThatArrivesCutShortIsBroken(t *testing.T) {
	body := echoBody(3 << 20)
	for name, srv := range map[string]*httptest.Server{
		"transfer broken": bodyServer(t, body, false, 2<<20),
		"JSON cut short":  bodyServer(t, body[:len(body)-5], true, 0),
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			var broken []string
			c := spillClient(t, srv.URL, dir, 1<<20)
			_, err := each(c.Shipment(context.Background(), spillRef), func(raw *response.Received) error {
				if raw.File == nil {
					return errors.New("no body file")
				}
				broken = append(broken, raw.Broken)
				return nil
			})
			if !errors.Is(err, extract.ErrBroken) || len(broken) != 2 || broken[0] == "" {
				t.Fatalf("Shipment: %v, attempts yielded broken: %q; want ErrBroken after 2 attempts", err, broken)
			}
			if left, _ := os.ReadDir(dir); len(left) != 0 {
				t.Errorf("%d files left in the spill directory", len(left))
			}
		})
	}
}

// A body of unknown length (chunked) that passes 8 MiB but not MaxDecode
// goes by a file and comes back whole into memory, redacted as it would
// have been: a body the job may decode is handed over as it always was.
func TestAChunkedBodyWithinMaxDecodeComesBackIntoMemory(t *testing.T) {
	slowtest.Long(t)
	body := echoBody(10 << 20)
	k, _ := extract.NewKey(spillKey)
	dir := t.TempDir()
	c := spillClient(t, bodyServer(t, body, true, 0).URL, dir, 16<<20)
	got, err := simtest.Drain(c.Shipment(context.Background(), spillRef))
	seen := last(got)
	if errors.Is(err, extract.ErrTooLarge) || seen == nil {
		t.Fatalf("Shipment: %v; want the body handed over to be decoded, not too large", err)
	}
	if seen.File != nil || !bytes.Equal(seen.Body, []byte(k.RedactString(string(body)))) {
		t.Errorf("yielded %d bytes in memory, file %v: want the body redacted, in memory", len(seen.Body), seen.File)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("%d files left in the spill directory", len(left))
	}
}

// A chunked body whose connection breaks is broken wherever it was held:
// in memory (within 8 MiB), by a file read back (within MaxDecode), or in
// its file (past MaxDecode).
func TestAChunkedBodyCutShortIsBrokenWhereverItIsHeld(t *testing.T) {
	slowtest.Long(t)
	body := echoBody(12 << 20)
	for _, c := range []struct {
		name      string
		cut       int
		maxDecode int64
		inFile    bool
	}{
		{"in memory", 2 << 20, 16 << 20, false},
		{"by a file read back", 10 << 20, 16 << 20, false},
		{"in its file", 3 << 20, 1 << 20, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			c2 := spillClient(t, bodyServer(t, body, true, c.cut).URL, t.TempDir(), c.maxDecode)
			seen, err := simtest.Drain(c2.Shipment(context.Background(), spillRef))
			if !errors.Is(err, extract.ErrBroken) || len(seen) != 2 {
				t.Fatalf("Shipment: %v after %d attempts; want ErrBroken after 2", err, len(seen))
			}
			last := seen[1]
			if !strings.Contains(last.Broken, "connection broke") || (last.File != nil) != c.inFile {
				t.Errorf("broken %q, body in a file: %v; want a broken connection, in a file: %v", last.Broken, last.File != nil, c.inFile)
			}
		})
	}
}

// A web page larger than MaxDecode where a JSON answer is wanted is said
// to be one, as a small one is: the product's URL is wrong, not the
// answer too large.
func TestAWebPageLargerThanMaxDecodeIsMisconfiguration(t *testing.T) {
	page := []byte("<html><body>" + strings.Repeat("<p>not here</p>", 200_000) + "</body></html>")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write(page)
	}))
	t.Cleanup(srv.Close)
	c := spillClient(t, srv.URL, t.TempDir(), 1<<20)
	_, err := simtest.Drain(c.Shipment(context.Background(), spillRef))
	if !errors.Is(err, extract.ErrMisconfigured) || !strings.Contains(err.Error(), "a web page (3000026 bytes of HTML)") {
		t.Fatalf("Shipment: %v; want ErrMisconfigured naming the page", err)
	}
}
