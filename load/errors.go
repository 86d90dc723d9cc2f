package load

import (
	"errors"
	"fmt"
	"time"

	"github.com/duckdb/duckdb-go/v2"
)

// Sentinels of the package; callers use errors.Is.
var (
	// ErrBusy: another writer — another process, or another Warehouse of
	// this process — holds the warehouse. A *BusyError says who.
	ErrBusy = errors.New("warehouse busy")
	// ErrNoWarehouse: OpenReadOnly found no published warehouse in the
	// directory.
	ErrNoWarehouse = errors.New("no warehouse")
	// ErrNotWarehouse: the directory's etalake.duckdb is no etalake
	// warehouse (another tool's DuckDB database, or no DuckDB database
	// at all); nothing was created or changed.
	ErrNotWarehouse = errors.New("not an etalake warehouse")
	// ErrMigration: the warehouse's recorded migrations do not match the
	// ones this binary embeds (edited since applied, or newer than the
	// binary). Migrations are forward-only; nothing was changed.
	ErrMigration = errors.New("warehouse schema does not match this binary")
	// ErrInvalid: a batch or a response was refused before anything was
	// written (wrong Arrow schema, missing field, table not loadable).
	ErrInvalid = errors.New("invalid input")
	// ErrRefused: the warehouse refused the rows of a Load for what they
	// hold (a value out of range, too large, a key given twice, more
	// memory than the limit allows), not for a failure of the warehouse
	// itself (a disk error, an interrupt): the same rows would be refused
	// again, and rows without them may load.
	ErrRefused = errors.New("rows refused by the warehouse")
	// ErrUnderived: Publish refused to publish a working copy in which
	// landed responses are not derived yet (a job stopped between
	// landing and deriving them, a replay that stopped midway): their
	// rows would be missing. Readers keep what they had; the next job
	// derives them and publishes.
	ErrUnderived = errors.New("landed responses not derived yet")
)

// Holder describes the process holding a warehouse's write lock, as it
// wrote itself into the lock file.
type Holder struct {
	PID   int       `json:"pid"`
	Host  string    `json:"host"`
	Since time.Time `json:"since"`
}

// BusyError is the error of an Open that found the warehouse held by
// another writer, after waiting for it as long as it was allowed to. It
// unwraps to ErrBusy.
type BusyError struct {
	Dir string
	// Holder is the writer holding the warehouse; zero when it had not
	// yet written its details.
	Holder Holder
	// Waited is how long the lock was waited for (Options.LockTimeout).
	Waited time.Duration
}

func (e *BusyError) Error() string {
	who := "another process (it has not yet recorded its pid in " + holderName + ")"
	if e.Holder.PID != 0 {
		who = fmt.Sprintf("pid %d on host %s since %s", e.Holder.PID, e.Holder.Host, e.Holder.Since.UTC().Format(time.RFC3339))
	}
	msg := fmt.Sprintf("%s: %s is being written by %s", ErrBusy, e.Dir, who)
	if e.Waited > 0 {
		msg += fmt.Sprintf("; gave up after waiting %s (--lock-timeout)", e.Waited)
	}
	return msg
}

// Unwrap makes every BusyError match ErrBusy.
func (e *BusyError) Unwrap() error { return ErrBusy }

// refusedRows wraps err in ErrRefused when it says the rows were refused
// for what they hold; other errors are returned as they are.
func refusedRows(err error) error {
	if err == nil || errors.Is(err, ErrRefused) {
		return err
	}
	if errors.Is(err, ErrInvalid) {
		return fmt.Errorf("%w: %w", ErrRefused, err)
	}
	var de *duckdb.Error
	if !errors.As(err, &de) {
		return err
	}
	switch de.Type {
	case duckdb.ErrorTypeInvalid, duckdb.ErrorTypeOutOfRange, duckdb.ErrorTypeConversion, duckdb.ErrorTypeDecimal,
		duckdb.ErrorTypeMismatchType, duckdb.ErrorTypeDivideByZero, duckdb.ErrorTypeObjectSize,
		duckdb.ErrorTypeInvalidType, duckdb.ErrorTypeConstraint, duckdb.ErrorTypeInvalidInput,
		duckdb.ErrorTypeOutOfMemory:
		return fmt.Errorf("%w: %w", ErrRefused, err)
	}
	return err
}

// invalidf returns an error wrapping ErrInvalid.
func invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
}
