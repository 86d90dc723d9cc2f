-- Migration 6, derived from the table definitions in schema/tables.go.
-- Regenerate with: go test ./schema -run TestMigrationsAreDerived -update

COMMENT ON COLUMN raw_responses."source" IS 'fetch (asked by a job), import (etalake import) or push (a vendor''s webhook, etalake webhook serve): only fetches answer a job''s logical date';
ALTER TABLE tracked_shipments ADD COLUMN "next_due_date" DATE;
COMMENT ON COLUMN tracked_shipments."next_due_date" IS 'the night (logical date) the nightly run next asks it, as the latest nightly run decided from what the warehouse held at its end (see due_reason); a night before that run''s own means it was due then and is not had yet (deferred by the pace, or its answer failed); NULL: never again (finished, dropped) or no nightly run has decided yet';
ALTER TABLE tracked_shipments ADD COLUMN "due_reason" VARCHAR;
COMMENT ON COLUMN tracked_shipments."due_reason" IS 'why it is due on next_due_date: new (never observed), overdue (its ETA passed, not arrived), near, mid, far, beyond (its tier by days until the ETA held), horizon-14 (and -7, -3, -1: the last night before its ETA comes within that many days), at-pod (discharged, final destination pending), grace, no-eta, billed (asked this month, billed per shipment-month), nightly (--refresh nightly); or, with no date, finished or dropped (billed per shipment-month: arrived, not asked in a new month)';
ALTER TABLE tracked_shipments ADD COLUMN "deferred_since" DATE;
COMMENT ON COLUMN tracked_shipments."deferred_since" IS 'the first night in a row it was due and deferred by the pace (--pace): the night''s allowance went to more valuable shipments; NULL when not deferred';
ALTER TABLE tracked_shipments ADD COLUMN "due_as_of" DATE;
COMMENT ON COLUMN tracked_shipments."due_as_of" IS 'the logical date of the nightly run that decided next_due_date and due_reason';
COMMENT ON TABLE tracked_shipments IS 'The shipments the nightly run refreshes until they are finished (etalake track, run --shipments), each with the night the refresh policy next asks it, as the latest nightly run decided. Key (shipment_number, shipment_type), ledger.';
