package load

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/duckdb/duckdb-go/v2"

	"github.com/etalake/etalake/internal/bytesize"
)

// withinMemory runs fn, a statement of the writer's own (a refresh, an
// export) that may run out of DuckDB's memory limit, and runs it again
// while it does: on one thread (a parallel sort or hash aggregation holds
// a table per thread: one thread fits what two do not), then on one thread
// with twice and four times the memory limit, which is better than
// failing a job at its end for the minute the statement runs. Every
// setting is restored after.
func (w *Warehouse) withinMemory(ctx context.Context, fn func() error) error {
	single := func() error {
		return w.withSetting(ctx, "threads", "1", strconv.Itoa(w.opt.Threads), fn)
	}
	err := fn()
	if isOutOfMemory(err) {
		err = single()
	}
	limit, known := memoryBytes(w.opt.MemoryLimit) // not a percentage
	for _, more := range []int64{2, 4} {
		if !known || !isOutOfMemory(err) {
			break
		}
		err = w.withSetting(ctx, "memory_limit", fmt.Sprintf("'%dMiB'", limit*more>>20), literal(w.opt.MemoryLimit), single)
	}
	return err
}

// makeRoom checkpoints before a statement that needs memory (a refresh,
// the Parquet sync): what the job just loaded is held in memory until it
// is checkpointed; written out, it can be evicted while the statement
// needs the room.
func (w *Warehouse) makeRoom(ctx context.Context) error {
	if _, err := w.db.ExecContext(ctx, "CHECKPOINT"); err != nil {
		return fmt.Errorf("checkpoint to make room: %w", err)
	}
	return nil
}

// withSetting runs fn with the DuckDB setting name at value (SQL), and
// sets it to back after.
func (w *Warehouse) withSetting(ctx context.Context, name, value, back string, fn func() error) error {
	if _, err := w.db.ExecContext(ctx, fmt.Sprintf("SET %s = %s", name, value)); err != nil {
		return err
	}
	defer w.db.ExecContext(context.WithoutCancel(ctx), fmt.Sprintf("SET %s = %s", name, back))
	return fn()
}

// memoryBytes reads a DuckDB memory size such as "128MB" or "1GiB"; a
// percentage, or a size of nothing, is not known.
func memoryBytes(s string) (int64, bool) {
	n, err := bytesize.Parse(s)
	return n, err == nil && n > 0
}

func isOutOfMemory(err error) bool {
	var de *duckdb.Error
	return errors.As(err, &de) && de.Type == duckdb.ErrorTypeOutOfMemory
}
