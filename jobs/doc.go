// Package jobs wires the stages into what users run: the nightly job, the
// backfill, import, replay, the demo, the tracked set and the credit
// balance. It decides what to ask (the worklist, the checkpoint, the
// caps, and of the tracked set what the refresh policy says is due and
// the pace affords: refresh*.go), ranges over the responses of each call
// of extract (extract.Responses), syncs every response to the job's
// journal the moment it arrives, before it asks for the next (fetch.go),
// and hands it to a single writer that lands it (load),
// derives it (transform) and loads its rows (load), says how a job ended,
// and publishes the warehouse for readers at its end. What the vendor
// pushes (a webhook package Delivery) it lands as a tracking response of
// source push in a receiver journal, without the writer lock (push.go). It runs no SQL and
// builds no records — the run ledger, the tracked set and the checkpoint
// are load's — and renders nothing but a terminal's progress line:
// parsing flags, printing results and exit codes are the command's. Each
// job returns how it ended as a Verdict (verdict.go); the command maps it
// to its exit code and hands that table in (ExitCodes), so that
// etl_runs.exit_code records what the process exits with. Each option
// struct's Validate says which setting is out of range (validate.go).
package jobs
