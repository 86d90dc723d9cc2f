package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"runtime/pprof"
	"strconv"
	"time"

	"github.com/etalake/etalake/internal/rusage"
)

// Paths of the benchmark, as -mode names them.
const (
	pathOurs   = "ours"
	pathDuckDB = "duckdb"
)

// childStats is what a child reports on its standard output, as JSON.
type childStats struct {
	Bodies int64 `json:"bodies"`
	// Events is the container events the duckdb path counted in the
	// bodies; the ours path leaves it 0 (the manifest has the count).
	Events int64            `json:"events,omitempty"`
	Rows   map[string]int64 `json:"rows"`
	// Phases is the duckdb path's seconds per step (the ours path's are
	// in its CPU profile).
	Phases map[string]float64 `json:"phases,omitempty"`
	// Parts is how many processes the ours path imported the input in.
	Parts int `json:"parts,omitempty"`
}

// childOptions are the flags a child is run with.
type childOptions struct {
	read       string // -duckdb-read
	partBytes  int64  // -part-size
	cpu        int    // GOMAXPROCS, 0: the Go default
	cpuProfile string // file name prefix, "" for none
	memProfile string // file name prefix, "" for none
}

// measurement is one run of one path.
type measurement struct {
	path   string
	wall   time.Duration
	rssKiB int64
	stats  childStats
}

// spawn runs one path as a child process of this program on a fresh
// warehouse, and measures its wall time and peak RSS.
func spawn(ctx context.Context, path, input, warehouse string, o childOptions, tag string) (measurement, error) {
	exe, err := os.Executable()
	if err != nil {
		return measurement{}, err
	}
	args := []string{"-mode", path, "-input", input, "-warehouse", warehouse, "-duckdb-read", o.read, "-part-size", strconv.FormatInt(o.partBytes, 10)}
	if o.cpuProfile != "" {
		args = append(args, "-cpuprofile", o.cpuProfile+"."+path+"."+tag)
	}
	if o.memProfile != "" {
		args = append(args, "-memprofile", o.memProfile+"."+path+"."+tag)
	}
	cmd := exec.CommandContext(ctx, exe, args...)
	cmd.Env = os.Environ()
	if o.cpu > 0 {
		cmd.Env = append(cmd.Env, "GOMAXPROCS="+strconv.Itoa(o.cpu))
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, os.Stderr
	start := time.Now()
	err = cmd.Run()
	m := measurement{path: path, wall: time.Since(start)}
	if err != nil {
		return m, fmt.Errorf("%s path: %w", path, err)
	}
	m.rssKiB = rusage.PeakRSSKiB(cmd.ProcessState)
	if err := json.Unmarshal(out.Bytes(), &m.stats); err != nil {
		return m, fmt.Errorf("%s path: its report %q: %w", path, out.String(), err)
	}
	return m, nil
}

// child runs one path in this process, with the profiles asked for, and
// prints its report.
func child(ctx context.Context, path, input, warehouse string, o childOptions) error {
	if o.cpuProfile != "" {
		f, err := os.Create(o.cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	var st childStats
	var err error
	switch path {
	case pathOurs:
		st, err = runOurs(ctx, input, warehouse, o.partBytes)
	case pathDuckDB:
		st, err = runDuckDB(ctx, input, warehouse, o.read)
	default:
		err = fmt.Errorf("-mode %q: want %s or %s", path, pathOurs, pathDuckDB)
	}
	if err != nil {
		return err
	}
	if o.memProfile != "" {
		f, err := os.Create(o.memProfile)
		if err != nil {
			return err
		}
		runtime.GC()
		if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
			f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
	}
	return json.NewEncoder(os.Stdout).Encode(st)
}
