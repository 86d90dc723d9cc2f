//go:build !linux || !cgo

package onearena

// Applied reports that the limit was not set: there is no glibc here.
func Applied() bool { return false }
