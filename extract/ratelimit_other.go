//go:build !(linux || darwin || freebsd || openbsd || netbsd || dragonfly || illumos)

package extract

import "os"

// On systems without flock (Windows, Solaris, AIX, Plan 9, WebAssembly) the
// state file is still read and written, so a process respects the requests
// of the processes that ran before it, but concurrent processes are not
// serialised: each stays within the rate by itself, and together they may
// exceed it. Give each concurrent process its own share of the rate there.

// lockFile does nothing on this system: the limiter's mutex serialises the
// goroutines of this process only.
func lockFile(*os.File) error { return nil }

// unlockFile does nothing on this system.
func unlockFile(*os.File) error { return nil }
