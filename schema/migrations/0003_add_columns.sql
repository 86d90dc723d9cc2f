-- Migration 3, derived from the table definitions in schema/tables.go.
-- Regenerate with: go test ./schema -run TestMigrationsAreDerived -update

ALTER TABLE raw_responses ADD COLUMN "next_page" VARCHAR;
COMMENT ON COLUMN raw_responses."next_page" IS 'path and query of the page after this one, when a paged answer names one (Next-Page-Cursor, Link rel=next, or a next link or cursor in the body); NULL on the last page or an answer that is not paged';
