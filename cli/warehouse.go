package cli

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/KimMachineGun/automemlimit/memlimit"
	"github.com/urfave/cli/v2"

	"github.com/etalake/etalake/internal/bytesize"
	"github.com/etalake/etalake/jobs"
	"github.com/etalake/etalake/load"
)

// openWarehouse opens the warehouse for writing. While another job writes
// it, it says whom it waits for and waits up to --lock-timeout; past that,
// the error matches load.ErrBusy (exit 75).
func openWarehouse(c *cli.Context) (*load.Warehouse, error) {
	opt, err := writerOptions(c)
	if err != nil {
		return nil, err
	}
	if err := withLake(c, &opt); err != nil {
		return nil, err
	}
	wh, err := load.Open(c.Context, c.String(flagWarehouse), opt)
	if errors.Is(err, load.ErrPull) {
		return nil, usageErr{err}
	}
	return wh, err
}

// writerOptions are the warehouse's options for a command that writes
// it: its settings, and the wait for another writer said in the log.
func writerOptions(c *cli.Context) (load.Options, error) {
	opt, err := warehouseOptions(c)
	if err != nil {
		return opt, err
	}
	log, err := newLogger(c)
	if err != nil {
		return opt, err
	}
	opt.Waiting = sayWaiting(log, opt.LockTimeout)
	return opt, nil
}

// onWarehouse opens the warehouse, runs job on it and closes it: a close
// that fails (the publish's last step) is the command's error when the
// job's was nil.
func onWarehouse[T any](c *cli.Context, job func(*load.Warehouse) (T, error)) (T, error) {
	wh, err := openWarehouse(c)
	if err != nil {
		var none T
		return none, err
	}
	defer wh.Close()
	res, err := job(wh)
	if cerr := wh.Close(); err == nil {
		err = cerr
	}
	return res, err
}

// sayWaiting says, once, that a job waits for the warehouse, for whom and
// how long at most.
func sayWaiting(log *slog.Logger, timeout time.Duration) func(*load.BusyError) {
	return func(b *load.BusyError) {
		log.Warn("waiting for the warehouse", "for", timeout.String(), "busy", b.Error())
	}
}

// openReader opens the published warehouse read-only (it never waits for
// a job); a missing warehouse is a usage error (exit 2). Unless
// allowFiles, its queries read no file but the database and the Parquet
// mirror, and write none (load.OpenReader).
func openReader(c *cli.Context, allowFiles bool) (*sql.DB, error) {
	opt, err := warehouseOptions(c)
	if err != nil {
		return nil, err
	}
	log, err := newLogger(c)
	if err != nil {
		return nil, err
	}
	return openReaderWith(c.Context, c.String(flagWarehouse), opt, readOptions(log, allowFiles))
}

// readOptions are a reader's options: whether its queries may use files,
// and the log that says when a notebook holds the warehouse read-write.
func readOptions(log *slog.Logger, allowFiles bool) load.ReadOptions {
	return load.ReadOptions{AllowFiles: allowFiles, Snapshot: saySnapshot(log)}
}

// saySnapshot says that the published warehouse was held read-write by
// another process and a private copy of it is read instead: who holds
// it, what the copy cost, and how to spare it.
func saySnapshot(log *slog.Logger) func(load.Snapshot) {
	return func(s load.Snapshot) {
		log.Warn("reading a private copy of the warehouse: "+s.Holder.String()+" holds etalake.duckdb open read-write, which keeps every other process out of it "+
			"(a notebook's duckdb.connect(path) without read_only=True, DBeaver without a read-only connection); the copy is the warehouse as that process last checkpointed it, "+
			"removed when this command ends; open the warehouse read-only to spare it (README: From a notebook)",
			"holder_pid", s.Holder.PID, "holder", s.Holder.Command, "bytes", s.Bytes, "took", s.Took.Round(time.Millisecond).String(), "copy", s.Dir)
	}
}

// openReaderWith is openReader of the warehouse in dir with opt and ro.
// A reader is an analyst's query: it takes every core, where a writer
// keeps to two.
func openReaderWith(ctx context.Context, dir string, opt load.Options, ro load.ReadOptions) (*sql.DB, error) {
	opt.Threads = runtime.NumCPU()
	db, err := load.OpenReader(ctx, dir, opt, ro)
	if errors.Is(err, load.ErrNoWarehouse) {
		return nil, usageErr{err}
	}
	return db, err
}

// Names of the flags of the commands that open the warehouse.
const (
	flagWarehouse   = "warehouse"
	flagMemoryLimit = "memory-limit"
	flagMaxBody     = "max-body"
	flagLockTimeout = "lock-timeout"
	flagThreads     = "threads"
)

// defaultLockTimeout is --lock-timeout's default: long enough for a
// backfill to wait out most of a nightly run's end, short enough that a
// scheduler sees a stuck warehouse the same night.
const defaultLockTimeout = 10 * time.Minute

// defaultMemoryLimit is --memory-limit's default: 1 GiB, or half the
// memory this process may use when that is less (docs/settings.md, "Memory").
const defaultMemoryLimit = load.DefaultMemoryLimit

func warehouseFlag() cli.Flag {
	return &cli.StringFlag{Category: catWarehouse, Name: flagWarehouse, EnvVars: []string{"ETALAKE_WAREHOUSE"}, Value: "./warehouse",
		Usage: "the warehouse directory: etalake.duckdb and the Parquet mirror under parquet/"}
}

// warehouseFlags are the flags of every command that opens the warehouse,
// the log's among them.
func warehouseFlags() []cli.Flag {
	return append([]cli.Flag{warehouseFlag(), memoryLimitFlag()}, logFlags()...)
}

// writerFlags are the flags of the commands that write the warehouse.
func writerFlags() []cli.Flag {
	return append(append(warehouseFlags(), lockTimeoutFlag(), threadsFlag()), lakeFlags()...)
}

func threadsFlag() cli.Flag {
	return &cli.IntFlag{Category: catWarehouse, Name: flagThreads, EnvVars: []string{"ETALAKE_THREADS"}, Value: load.DefaultThreads,
		Usage: "DuckDB's threads for the job, 1 to 256: one does a job's many small statements with less CPU in no more time (measured up to an import of 51 000 answers: BENCHMARKS.md, Writer threads); more may help a job of larger statements on an idle machine; readers (sql, report) take every core"}
}

func lockTimeoutFlag() cli.Flag {
	return &cli.DurationFlag{Category: catWarehouse, Name: flagLockTimeout, EnvVars: []string{"ETALAKE_LOCK_TIMEOUT"}, Value: defaultLockTimeout,
		Usage: "how long to wait for another job writing the warehouse before giving up with exit code 75 (busy), 0 to 24h; 0 does not wait"}
}

func memoryLimitFlag() cli.Flag {
	return &cli.StringFlag{Category: catWarehouse, Name: flagMemoryLimit, EnvVars: []string{"ETALAKE_MEMORY_LIMIT"}, DefaultText: "1GiB, or half the memory when that is less",
		Usage: "DuckDB's memory: a size (512MiB, 2GB) or a share of this machine's memory (40%, of the container's limit when it has one); past it, DuckDB spills to disk"}
}

func maxBodyFlag() cli.Flag {
	return &cli.StringFlag{Category: catWarehouse, Name: flagMaxBody, EnvVars: []string{"ETALAKE_MAX_BODY"}, Value: bytesize.Format(jobs.DefaultMaxBody),
		Usage: "the largest response body decoded; a larger one is streamed to disk as it arrives, never held whole in memory, kept under <warehouse>/bodies and dead-lettered, not decoded (replay with a larger --max-body derives it)"}
}

// warehouseOptions reads --memory-limit, --lock-timeout and --threads into the
// warehouse's options, and validates them (load.Options.Validate).
func warehouseOptions(c *cli.Context) (load.Options, error) {
	opt := load.DefaultOptions()
	// Readers have no --lock-timeout: they never wait (zero).
	opt.LockTimeout = c.Duration(flagLockTimeout)
	if c.IsSet(flagThreads) {
		opt.Threads = c.Int(flagThreads)
	}
	opt.MemoryLimit = defaultMemory()
	if s := c.String(flagMemoryLimit); strings.TrimSpace(s) != "" {
		n, err := parseMemoryLimit(s)
		if err != nil {
			return opt, configError("%s %q: %v", settingName(c, flagMemoryLimit), s, err)
		}
		opt.MemoryLimit = n
	}
	return opt, settingError(c, opt.Validate())
}

// parseMemoryLimit reads a memory limit: a size, or a percentage of the
// memory this process may use (the container's limit when there is one,
// else the machine's).
func parseMemoryLimit(s string) (int64, error) {
	t := strings.TrimSpace(s)
	var n int64
	if p, ok := strings.CutSuffix(t, "%"); ok {
		pct, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || !(pct > 0 && pct <= 100) {
			return 0, fmt.Errorf("want a percentage above 0 and at most 100, such as 40%%")
		}
		total, err := availableMemory()
		if err != nil {
			return 0, fmt.Errorf("the memory of this machine is unknown (%v): give a size such as 2GiB", err)
		}
		n = int64(float64(total) * pct / 100)
	} else {
		var err error
		if n, err = bytesize.Parse(t); err != nil {
			return 0, fmt.Errorf("want %s, or a percentage such as 40%%", bytesize.Form)
		}
	}
	return n, nil
}

// defaultMemory is defaultMemoryLimit, or half the memory this process may
// use when that is less (and known): a small server keeps room for the
// rest of the process and the system.
func defaultMemory() int64 {
	if total, err := availableMemory(); err == nil && total > 0 {
		return max(min(defaultMemoryLimit, int64(total/2)), load.MinMemoryLimit)
	}
	return defaultMemoryLimit
}

// availableMemory is the memory this process may use: the cgroup's limit
// (a container's) when there is one, else the machine's.
func availableMemory() (uint64, error) {
	if n, err := memlimit.FromCgroup(); err == nil && n > 0 {
		return n, nil
	}
	return memlimit.FromSystem()
}

// maxBody reads --max-body; the jobs' options say the least it may be.
func maxBody(c *cli.Context) (int64, error) {
	s := c.String(flagMaxBody)
	n, err := bytesize.Parse(s)
	if err != nil {
		return 0, configError("%s %q: want %s, at least 1 byte", settingName(c, flagMaxBody), s, bytesize.Form)
	}
	return n, nil
}

// openPlanning opens the warehouse for a dry run, which writes nothing:
// not even a missing warehouse is created (see load.OpenPlanning).
func openPlanning(c *cli.Context) (*load.Warehouse, error) {
	opt, err := warehouseOptions(c)
	if err != nil {
		return nil, err
	}
	return load.OpenPlanning(c.Context, c.String(flagWarehouse), opt)
}
