// Package jobs wires the stages into what users run: the nightly job, the
// backfill, replay, the demo, and small jobs such as reading the credit
// balance. It owns orchestration, checkpoints, the run ledger, locking,
// progress and logging; the stages themselves live in extract, transform
// and load.
package jobs
