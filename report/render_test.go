package report_test

import (
	"context"
	"errors"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/etalake/etalake/internal/slowtest"
)

// chromiumFlags run Chromium headless, offline and without a trace: no
// sandbox (tests may run as root), no GPU, no network of its own.
var chromiumFlags = []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
	"--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
	"--disable-dev-shm-usage"}

// The screenshot's size: the width of a laptop, tall enough for the
// whole page of a demo-like warehouse.
const shotWidth, shotHeight = 1280, 4800

// TestHTMLRendersInChromium renders the page of a demo-like warehouse in
// headless Chromium and checks the screenshot: its size, that it is not
// blank, and that the charts drew their colours.
func TestHTMLRendersInChromium(t *testing.T) {
	slowtest.Long(t)
	chromium := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			chromium = p
			break
		}
	}
	if chromium == "" {
		t.Skip("chromium is not on PATH: the HTML rendering test needs it (Debian: apt-get install chromium)")
	}
	r := build(t, demoLike())
	r.Warehouse = "./etalake-demo"
	dir := t.TempDir()
	pagePath := filepath.Join(dir, "report.html")
	if err := os.WriteFile(pagePath, []byte(page(t, r)), 0o644); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(dir, "report.png")
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	if err := screenshot(ctx, chromium, dir, "file://"+pagePath, shot); err != nil {
		if !crashed(err) {
			t.Fatal(err)
		}
		// A browser killed by a signal says nothing about the page yet:
		// try once more, then whether it renders an empty page at all.
		t.Logf("chromium crashed, trying again: %v", err)
		if err2 := screenshot(ctx, chromium, dir, "file://"+pagePath, shot); err2 != nil {
			blank := filepath.Join(dir, "blank.html")
			if werr := os.WriteFile(blank, []byte("<!doctype html><title>blank</title>"), 0o644); werr != nil {
				t.Fatal(werr)
			}
			if berr := screenshot(ctx, chromium, dir, "file://"+blank, filepath.Join(dir, "blank.png")); crashed(berr) {
				t.Skipf("chromium crashes here even on an empty page, so it cannot judge the report's:\n%v\n%v", err2, berr)
			}
			t.Fatalf("chromium renders an empty page but crashed twice on the report's:\n%v\n%v", err, err2)
		}
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("the screenshot is not a PNG: %v", err)
	}
	if b := img.Bounds(); b.Dx() != shotWidth || b.Dy() != shotHeight {
		t.Fatalf("screenshot %dx%d, want %dx%d", b.Dx(), b.Dy(), shotWidth, shotHeight)
	}
	s := survey(img)
	total := shotWidth * shotHeight
	t.Logf("%d of %d pixels not white, %d distinct colours", s.nonWhite, total, len(s.colours))
	if s.nonWhite < total/50 {
		t.Errorf("%d pixels of %d are not white: the page looks blank", s.nonWhite, total)
	}
	if len(s.colours) < 200 {
		t.Errorf("%d distinct colours: too few for text and charts", len(s.colours))
	}
	for _, c := range []struct {
		name string
		rgb  [3]uint8
		min  int
	}{
		{"carrier-ETA histogram bars and HLCU's line (#4e79a7)", [3]uint8{0x4e, 0x79, 0xa7}, 5000},
		{"predictive-ETA histogram bars and MAEU's line (#f28e2b)", [3]uint8{0xf2, 0x8e, 0x2b}, 3000},
		{"on-time bars (#59a14f)", [3]uint8{0x59, 0xa1, 0x4f}, 20000},
		{"COSU's line (#e15759)", [3]uint8{0xe1, 0x57, 0x59}, 100},
		{"the all-carriers bar (#555555)", [3]uint8{0x55, 0x55, 0x55}, 5000},
	} {
		n := s.near(c.rgb)
		t.Logf("%s: %d pixels", c.name, n)
		if n < c.min {
			t.Errorf("%s: %d pixels, want at least %d", c.name, n, c.min)
		}
	}
}

// screenshot renders url in headless Chromium into the PNG shot, with a new
// profile under dir each time (a crashed one may be left locked).
func screenshot(ctx context.Context, chromium, dir, url, shot string) error {
	profile, err := os.MkdirTemp(dir, "profile")
	if err != nil {
		return err
	}
	args := append(append([]string{}, chromiumFlags...),
		"--user-data-dir="+profile, "--screenshot="+shot,
		fmt.Sprintf("--window-size=%d,%d", shotWidth, shotHeight), url)
	cmd := exec.CommandContext(ctx, chromium, args...)
	cmd.WaitDelay = 10 * time.Second
	if out, err := cmd.CombinedOutput(); err != nil {
		return &chromiumError{err: err, out: out}
	}
	return nil
}

// chromiumError is a failed Chromium run with what it printed.
type chromiumError struct {
	err error
	out []byte
}

func (e *chromiumError) Error() string { return fmt.Sprintf("chromium: %v\n%s", e.err, e.out) }
func (e *chromiumError) Unwrap() error { return e.err }

// crashed tells whether Chromium was killed by a signal (a segmentation
// fault, say) rather than exiting with an error of its own.
func crashed(err error) bool {
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		return false
	}
	ws, ok := exit.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled()
}

// pixels counts a screenshot's colours.
type pixels struct {
	nonWhite int
	colours  map[[3]uint8]int
}

func survey(img image.Image) pixels {
	p := pixels{colours: map[[3]uint8]int{}}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			c := [3]uint8{uint8(r >> 8), uint8(g >> 8), uint8(bl >> 8)}
			p.colours[c]++
			if c != [3]uint8{255, 255, 255} {
				p.nonWhite++
			}
		}
	}
	return p
}

// near counts the pixels within a few levels of rgb on every channel.
func (p pixels) near(rgb [3]uint8) int {
	n := 0
	for c, k := range p.colours {
		if diff(c[0], rgb[0]) <= 6 && diff(c[1], rgb[1]) <= 6 && diff(c[2], rgb[2]) <= 6 {
			n += k
		}
	}
	return n
}

func diff(a, b uint8) int {
	if a > b {
		return int(a - b)
	}
	return int(b - a)
}
