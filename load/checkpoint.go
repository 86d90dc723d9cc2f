package load

import (
	"context"
	"fmt"
	"time"
)

// Answered lists the resources answered for a logical date by a fetch: a
// 404 (no data), or a success whose every page has landed — no landed
// page names a next page that has not landed itself — and whose latest
// walk did not stop short (response.Received.PagingStop: a loop, an empty page
// naming a next one, the page limit). A job asks only for what is
// missing, so a second job of the same date spends nothing.
func (w *Warehouse) Answered(ctx context.Context, logical time.Time) (map[string]bool, error) {
	if w.db == nil {
		return nil, errClosed
	}
	resources, err := queryStrings(ctx, w.db, landedPages+`
SELECT DISTINCT resource FROM landed l
WHERE NOT EXISTS (SELECT 1 FROM pending p WHERE p.resource = l.resource)
  AND NOT EXISTS (SELECT 1 FROM stopped s WHERE s.resource = l.resource)`,
		logical.Format(time.DateOnly), SourceFetch)
	if err != nil {
		return nil, fmt.Errorf("reading the checkpoint: %w", err)
	}
	out := make(map[string]bool, len(resources))
	for _, r := range resources {
		out[r] = true
	}
	return out, nil
}

// landedPages is the common part of Answered and PendingPages: the
// answers (2xx or 404, not broken) landed by fetches for a logical date,
// the next pages they name that have not landed, and the resources whose
// latest walk stopped short: the last page fetched says where it stopped
// (a page landed again unchanged keeps the row, and the time, of its
// first landing; a page that stopped a walk is a row of its own).
const landedPages = `WITH landed AS (
    SELECT resource, request, next_page, paging_stop, fetched_at FROM raw_responses
    WHERE logical_date = ? AND source = ? AND (status BETWEEN 200 AND 299 OR status = 404) AND broken IS NULL),
pending AS (
    SELECT l.resource, l.next_page FROM landed l
    WHERE l.next_page IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM landed n WHERE n.resource = l.resource AND n.request = l.next_page)),
stopped AS (
    SELECT resource FROM landed GROUP BY resource
    HAVING arg_max(paging_stop IS NOT NULL, fetched_at))`

// PendingPages lists, by resource, the next page to ask for a logical
// date: a resource whose answer came in pages, some landed and the next
// not (a job stopped after page 3 of 7 resumes at page 4). When landed
// pages name more than one missing page, the least is given.
func (w *Warehouse) PendingPages(ctx context.Context, logical time.Time) (map[string]string, error) {
	if w.db == nil {
		return nil, errClosed
	}
	rows, err := w.db.QueryContext(ctx, landedPages+`
SELECT resource, min(next_page) FROM pending GROUP BY resource`,
		logical.Format(time.DateOnly), SourceFetch)
	if err != nil {
		return nil, fmt.Errorf("reading the pages to resume: %w", err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var res, next string
		if err := rows.Scan(&res, &next); err != nil {
			return nil, err
		}
		out[res] = next
	}
	return out, rows.Err()
}

// FailedAsk is how a resource was asked in vain for a logical date.
type FailedAsk struct {
	// Jobs counts the jobs (runs) whose answer to it for the date stayed
	// broken (response.Received.Broken) or whose walk through its pages stopped
	// short (response.Received.PagingStop).
	Jobs int
	// Last is when the latest of those answers was fetched; Why says what
	// was wrong with it (its broken or paging_stop).
	Last time.Time
	Why  string
	// Recovered: since Last, a later job (not the one that fetched Last)
	// got a whole answer of a paid request of the same product — a 2xx
	// not broken, not stopped paging, of any resource and date. The
	// service answers that product well again.
	Recovered bool
}

// FailedAsks tells, by resource not answered for a logical date, how it
// was asked in vain (see FailedAsk): for the cap on asking again, and for
// asking again once the service answers its product well.
func (w *Warehouse) FailedAsks(ctx context.Context, logical time.Time) (map[string]FailedAsk, error) {
	if w.db == nil {
		return nil, errClosed
	}
	day := logical.Format(time.DateOnly)
	rows, err := w.db.QueryContext(ctx, landedPages+`,
failed AS (
    SELECT b.resource, any_value(b.product) AS product, count(DISTINCT b.run_id) AS jobs,
           max(b.fetched_at) AS last_at, arg_max(b.run_id, b.fetched_at) AS last_run,
           arg_max(coalesce(b.broken, b.paging_stop), b.fetched_at) AS why
    FROM raw_responses b
    WHERE b.logical_date = ? AND b.source = ? AND (b.broken IS NOT NULL OR b.paging_stop IS NOT NULL)
      AND (NOT EXISTS (SELECT 1 FROM landed l WHERE l.resource = b.resource)
           OR EXISTS (SELECT 1 FROM pending p WHERE p.resource = b.resource)
           OR EXISTS (SELECT 1 FROM stopped s WHERE s.resource = b.resource))
    GROUP BY b.resource)
SELECT f.resource, f.jobs, f.last_at, f.why,
       EXISTS (SELECT 1 FROM raw_responses g
               WHERE g.source = ? AND g.product = f.product AND g.status BETWEEN 200 AND 299
                 AND g.broken IS NULL AND g.paging_stop IS NULL
                 AND g.endpoint IN ('schedule_port', 'schedule_p2p', 'schedule_vessel', 'shipment')
                 AND g.run_id <> f.last_run AND g.fetched_at > f.last_at) AS recovered
FROM failed f`,
		day, SourceFetch, day, SourceFetch, SourceFetch)
	if err != nil {
		return nil, fmt.Errorf("reading the broken answers: %w", err)
	}
	defer rows.Close()
	out := map[string]FailedAsk{}
	for rows.Next() {
		var res string
		var f FailedAsk
		if err := rows.Scan(&res, &f.Jobs, &f.Last, &f.Why, &f.Recovered); err != nil {
			return nil, fmt.Errorf("reading the broken answers: %w", err)
		}
		f.Last = f.Last.UTC()
		out[res] = f
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading the broken answers: %w", err)
	}
	return out, nil
}

// PagesPerAnswer is, by resource, how many pages its latest answer took:
// the whole answers (2xx, not broken) fetched for the latest logical date
// it was fetched for, however many jobs asked them. Jobs price paged
// requests with it: a schedule that came in 3 pages last time is 3
// credits, not 1.
func (w *Warehouse) PagesPerAnswer(ctx context.Context) (map[string]int, error) {
	if w.db == nil {
		return nil, errClosed
	}
	out, err := countsByResource(ctx, w, `
WITH pages AS (
    SELECT resource, logical_date, count(*) AS n FROM raw_responses
    WHERE source = ? AND status BETWEEN 200 AND 299 AND broken IS NULL AND logical_date IS NOT NULL
    GROUP BY resource, logical_date)
SELECT resource, CAST(arg_max(n, logical_date) AS INTEGER) FROM pages GROUP BY resource`, SourceFetch)
	if err != nil {
		return nil, fmt.Errorf("reading the pages per answer: %w", err)
	}
	return out, nil
}

// countsByResource runs q, whose rows are a resource and a count.
func countsByResource(ctx context.Context, w *Warehouse, q string, args ...any) (map[string]int, error) {
	rows, err := w.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var res string
		var n int
		if err := rows.Scan(&res, &n); err != nil {
			return nil, err
		}
		out[res] = n
	}
	return out, rows.Err()
}
