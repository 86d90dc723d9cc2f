package load_test

import (
	"runtime/debug"
	"testing"
)

// gcPercent reads the Go GC target.
func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// TestWritersCollectSooner: while a writer is open the Go GC target is 50
// (the load batch is most of the Go heap); the last Close restores the
// target it found, and a GOGC the user set is left alone.
func TestWritersCollectSooner(t *testing.T) {
	before := debug.SetGCPercent(80)
	defer debug.SetGCPercent(before)

	w1 := openWarehouse(t, t.TempDir())
	w2 := openWarehouse(t, t.TempDir())
	if p := gcPercent(); p != 50 {
		t.Errorf("GC target with two writers open: %d, want 50", p)
	}
	w1.Close()
	if p := gcPercent(); p != 50 {
		t.Errorf("GC target with one writer still open: %d, want 50", p)
	}
	w2.Close()
	w2.Close()
	if p := gcPercent(); p != 80 {
		t.Errorf("GC target after the last Close: %d, want the 80 found", p)
	}

	t.Setenv("GOGC", "80")
	openWarehouse(t, t.TempDir())
	if p := gcPercent(); p != 80 {
		t.Errorf("GC target with GOGC set: %d, want it left at 80", p)
	}
}
