// Package pgtest starts a private Postgres for a test: Debian's postgresql
// binaries (initdb, pg_ctl) on loopback, a data directory of the test's,
// stopped when the test ends. Without the binaries the test skips, saying
// what to install. The lake's catalog tests and the coordinator's share it.
package pgtest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"testing"
)

// Server is a running private Postgres.
type Server struct {
	// URL reaches its postgres database as the trusted user etalake.
	URL  string
	run  func(args ...string) *exec.Cmd
	bin  string
	data string
	opts string // pg_ctl's -o: the port, loopback, the socket's directory
	log  string
}

// Start starts a Postgres for t and stops it (immediately: nothing of it is
// kept) when t ends. It skips t when Postgres is not installed, or when
// running as root with no postgres user to run it as (initdb refuses root).
func Start(t testing.TB) *Server {
	t.Helper()
	bin, why := installed()
	if why != "" {
		t.Skip(why)
	}
	s := &Server{bin: bin}
	base, err := os.MkdirTemp("", "etalake-pg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	s.data = filepath.Join(base, "data")
	s.run = func(args ...string) *exec.Cmd { return exec.Command(args[0], args[1:]...) }
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Fatal(err) // installed() found it
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(base, uid, gid); err != nil {
			t.Fatal(err)
		}
		s.run = func(args ...string) *exec.Cmd {
			return exec.Command("runuser", append([]string{"-u", "postgres", "--"}, args...)...)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	if out, err := s.run(filepath.Join(s.bin, "initdb"), "-D", s.data, "-U", "etalake", "--auth=trust", "-E", "UTF8").CombinedOutput(); err != nil {
		t.Fatalf("initdb: %v\n%s", err, out)
	}
	s.opts, s.log = fmt.Sprintf("-p %d -c listen_addresses=127.0.0.1 -k %s -c fsync=off", port, base), filepath.Join(base, "log")
	if err := s.Restart(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Stop() })
	s.URL = fmt.Sprintf("postgres://etalake@127.0.0.1:%d/postgres?sslmode=disable", port)
	return s
}

// Stop stops the server at once, closing every connection: how a test
// loses its database mid-run. Stopping a stopped server does nothing.
func (s *Server) Stop() error {
	return s.run(filepath.Join(s.bin, "pg_ctl"), "-D", s.data, "-m", "immediate", "stop").Run()
}

// Restart starts the server again after Stop, on the same port and data:
// how a test brings its database back.
func (s *Server) Restart() error {
	if out, err := s.run(filepath.Join(s.bin, "pg_ctl"), "-D", s.data, "-o", s.opts, "-l", s.log, "-w", "start").CombinedOutput(); err != nil {
		return fmt.Errorf("pg_ctl start: %v\n%s", err, out)
	}
	return nil
}

// Available says whether Start can start a Postgres here, and when not,
// why: for a test that covers Postgres where it can and runs otherwise.
func Available() (bool, string) {
	_, why := installed()
	return why == "", why
}

// installed finds Postgres's binaries, or says why Start cannot run them.
func installed() (bin, why string) {
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pg_ctl")
	if len(bins) == 0 {
		return "", "no Postgres here (/usr/lib/postgresql/*/bin/pg_ctl): install Debian's postgresql, as .ci/run does"
	}
	if os.Geteuid() == 0 {
		if _, err := user.Lookup("postgres"); err != nil {
			return "", "running as root and no postgres user to run Postgres as"
		}
	}
	return filepath.Dir(bins[len(bins)-1]), ""
}
