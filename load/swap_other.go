//go:build !linux

package load

// canSwap: no atomic exchange of two directories here; the mirror is
// written partition by partition.
const canSwap = false

// exchange: never reached (canSwap).
func exchange(a, b string) error { return errNoSwap }

// linkError: never reached (canSwap).
func linkError(err error) error { return err }

// syncFS: never reached (canSwap).
func syncFS(string) error { return errNoSwap }
