// Package rusage reads what getrusage says of an exited child process: its
// peak resident set size, the figure the end-to-end benchmark reports and
// an import in parts logs for each part.
package rusage
