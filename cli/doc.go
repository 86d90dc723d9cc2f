// Package cli is etalake's command line: one file per command
// (cmd_*.go), the settings every command shares (settings.go, envcheck.go),
// how a job's end becomes an exit code and a line on stderr (main.go),
// and the jobs' plumbing a command needs (runjob.go, warehouse.go).
// Package main at the repository's root only calls Main; the stages it
// drives live in their own packages (extract, transform, load, jobs, …).
//
// Its tests run from the repository's root (TestMain changes to it), where
// a user runs etalake and where the README's paths, Dockerfile and docs/
// are: a recipe is tested as written.
package cli
