package lake

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"testing"
	"time"
)

// realBusy is the error SQLite gives a writer refused at once: a second
// connection, with no busy timeout, writing while the first holds the
// write lock.
func realBusy(t *testing.T) error {
	t.Helper()
	path := filepath.Join(t.TempDir(), "busy.db")
	holder, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)&_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	if _, err := holder.Exec("CREATE TABLE t (x)"); err != nil {
		t.Fatal(err)
	}
	tx, err := holder.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec("INSERT INTO t VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	other, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(0)")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	_, err = other.Exec("INSERT INTO t VALUES (2)")
	if !sqliteBusy(err) {
		t.Fatalf("a write beside another's write lock: %v, want SQLITE_BUSY", err)
	}
	return err
}

// A fresh SQLite catalog opened by several processes at once can refuse
// one of them with SQLITE_BUSY, its busy handler skipped, while the file
// turns to WAL (bootstrap's comment); the creation is tried again rather
// than failing the job, and anything else fails at once.
func TestBootstrapTriesSQLiteBusyAgain(t *testing.T) {
	busy := realBusy(t)
	var waits []time.Duration
	l := &Lake{cfg: localConfig(t.TempDir()), opt: Options{MaxAttempts: 5, Backoff: 10 * time.Millisecond, MaxBackoff: time.Second,
		Sleep: func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }}}
	tries := 0
	err := l.bootstrap(context.Background(), "sqlite", func() error {
		tries++
		if tries < 3 {
			return busy
		}
		return nil
	})
	if err != nil || tries != 3 || len(waits) != 2 {
		t.Errorf("busy twice, then through: err %v after %d tries and %d waits, want nil after 3 and 2", err, tries, len(waits))
	}

	tries = 0
	err = l.bootstrap(context.Background(), "sqlite", func() error { tries++; return busy })
	if !errors.Is(err, busy) || tries != 5 {
		t.Errorf("always busy: %v after %d tries, want the busy error after MaxAttempts (5)", err, tries)
	}

	tries = 0
	other := errors.New("disk I/O error")
	err = l.bootstrap(context.Background(), "sqlite", func() error { tries++; return other })
	if !errors.Is(err, other) || tries != 1 {
		t.Errorf("another error: %v after %d tries, want it after 1", err, tries)
	}
}
