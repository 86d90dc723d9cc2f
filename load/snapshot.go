package load

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/duckdb/duckdb-go/v2"
)

// Process is a process holding the published database open read-write.
type Process struct {
	PID     int    // 0 when unknown
	Command string // its command name, "" when unknown
}

func (h Process) String() string {
	switch {
	case h.PID == 0:
		return "another process"
	case h.Command == "":
		return fmt.Sprintf("process %d", h.PID)
	}
	return fmt.Sprintf("process %d (%s)", h.PID, h.Command)
}

// Snapshot is a private copy of the published database, read instead of
// it while another process holds it read-write (see OpenReader).
type Snapshot struct {
	Holder Process
	// Bytes were copied in Took, to Dir, which the reader removes when it
	// is closed.
	Bytes int64
	Took  time.Duration
	Dir   string
}

// heldReadWrite reports whether err, the failure to open the published
// database at path read-only, is another process's read-write lock on it,
// and which process holds it.
func heldReadWrite(err error, path string) (Process, bool) {
	var de *duckdb.Error
	if !errors.As(err, &de) || de.Type != duckdb.ErrorTypeIO {
		return Process{}, false
	}
	return writeLockHolder(path)
}

// copySnapshot copies the database at path to a new private directory
// under os.TempDir. The holder may write to it meanwhile (a notebook
// holding it read-write seldom does): DuckDB writes a checkpoint's blocks
// before the header that names them, and the copy reads the header first,
// so the copy is the state of a checkpoint; a reader that finds it torn
// fails with DuckDB's checksum error rather than reading wrong rows.
func copySnapshot(path string, h Process) (Snapshot, error) {
	start := time.Now()
	dir, err := os.MkdirTemp("", "etalake-snapshot-")
	if err != nil {
		return Snapshot{}, err
	}
	n, err := copyPrivate(path, filepath.Join(dir, dbName))
	if err != nil {
		return Snapshot{}, errors.Join(err, os.RemoveAll(dir))
	}
	return Snapshot{Holder: h, Bytes: n, Took: time.Since(start), Dir: dir}, nil
}

// copyPrivate copies src to a new file dst, readable by its owner only (the
// warehouse may hold what other users of the machine should not read).
func copyPrivate(src, dst string) (int64, error) {
	in, err := os.Open(src)
	if err != nil {
		return 0, err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(out, in) // copy_file_range on Linux: a reflink where the file system has them
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return n, err
}
