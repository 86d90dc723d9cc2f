//go:build !unix

package main

import "os"

// peakRSSKiB is 0 where there is no getrusage.
func peakRSSKiB(*os.ProcessState) int64 { return 0 }
