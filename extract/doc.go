// Package extract is the source side of etalake: the HTTP client of the
// Shipping Schedule and Container ETA Service, with its per-key rate
// limiter, credit budgets, retry policy and paging walk, and the
// validation of what we send it. The service's data formats are package
// wire's.
//
// A call yields what the client receives (Responses): each response —
// status, Date header, body, next page — the moment it has been read,
// every attempt's, every page's, so that the caller lands it before
// anything decodes it. The client decodes only what it needs itself: an
// error's body, the next page, and a current period's credits for its
// budget; the answers are the transform's to decode. A body too large to
// decode comes, with Config.SpillDir, in the file it was streamed to as
// it arrived, redacted, never held whole (body.go). It knows nothing of
// DuckDB, Arrow or the warehouse.
//
// A key's window and credits are the process's, or shared with the
// processes of one machine through a state directory, or with those of
// every machine through a coordinator that implements SharedWindow and
// SharedLedger (package coord); without the coordinator, a process that
// had one asks nothing more (ErrCoordinatorLost).
package extract
