-- Migration 9, derived from the table definitions in schema/tables.go.
-- Regenerate with: go test ./schema -run TestMigrationsAreDerived -update

COMMENT ON COLUMN raw_responses."paging_stop" IS 'NULL but on the page where a walk through a paged answer stopped before its end: why (loop: a cursor seen twice; repeated page: a page holding the items of one seen before in the walk, under a new cursor; empty page: a page without items named a next one; page limit: --max-pages pages; off host: the next page on another host) and what was seen. The resource is not answered for its date: the next job resumes at next_page when it is not landed, else asks again from the first page, up to --max-reasks jobs';
