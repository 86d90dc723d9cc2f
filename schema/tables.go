package schema

import "fmt"

// req is a non-null column of the original contract; opt a nullable one.
func req(name string, t Type, doc string) Column {
	return Column{Name: name, Type: t, Since: 1, Doc: doc}
}
func opt(name string, t Type, doc string) Column {
	return Column{Name: name, Type: t, Nullable: true, Since: 1, Doc: doc}
}

// Columns shared by many tables.
var (
	colResponseID    = req("response_id", Varchar, "the landed response the row was derived from (raw_responses)")
	colObservedAt    = req("observed_at", Timestamp, "when the answer was true: the response's Date header, else receipt time")
	colObservedDate  = req("observed_date", Date, "UTC date of observed_at (partition)")
	colFirstObserved = req("first_observed_at", Timestamp, "earliest observation of this row")
	colLastObserved  = req("last_observed_at", Timestamp, "latest observation of this row; its values are from then")
	colFirstObsDate  = req("first_observed_date", Date, "UTC date of first_observed_at (partition)")
	colFirstSeen     = req("first_seen_at", Timestamp, "earliest response naming it")
	colFirstSeenDate = req("first_seen_date", Date, "UTC date of first_seen_at (partition)")
	// Migration 3 merges dimensions attribute by attribute (Dimension): the
	// values of a row are no longer all from its latest response.
	colLastSeen = Column{Name: "last_seen_at", Type: Timestamp, Since: 1,
		Doc:      "latest response naming it; its values are from then, but those it left out (<attribute>_kept)",
		DocSince: 3, OldDoc: "latest response naming it; its values are from then"}
	colLatestResponse = Column{Name: "response_id", Type: Varchar, Since: 1,
		Doc:      "the latest response naming it (raw_responses), observed at last_seen_at; of two at that instant, the greater id",
		DocSince: 3, OldDoc: colResponseID.Doc}
)

// eventKeyDoc documents container_events.event_key (transform/eventkey.go).
const eventKeyDoc = "stable identity of the event, from what does not change about it: a hash of the container, the event code " +
	"(the status when no code is known), the place (UN/LOCODE) and the occurrence; never its date, actual flag, vessel, voyage, " +
	"status or description, which carriers fill in or correct later: an estimate without a vessel and the actual with one are one event"

// eventZoneSource is where a container event's date takes its time zone.
const eventZoneSource = "the event's place (location.timezone, or that of the same UN/LOCODE elsewhere in the response)"

// portZoneSource is where a schedule's date takes its time zone
// (wire.scheduleDecoding.resolve).
const portZoneSource = "the port's zone: its location.timezone, that of the same UN/LOCODE elsewhere in the response, " +
	"else the zone of the UN/LOCODE's country when the country has one (DCSA answers name no zone)"

// zoneAssumedDoc documents the column telling which time zone a date
// written without a UTC offset (2023-12-31T05:39:00, 2021-01-13 01:57:00)
// was read in.
func zoneAssumedDoc(col, source string) string {
	return "NULL when " + col + " was sent with its UTC offset (or is NULL); else the time zone it was read in, the date having none: " +
		"the IANA name of " + source + ", or UTC when no zone is known"
}

// dimensionRule tells analysts how a Dimension table merges (Dimension),
// in its comment since migration 3.
const dimensionRule = " Each attribute is as last given: a response that leaves one out (null or empty) keeps the one known, one that gives it replaces it (of two observed at the same instant, the greater response_id's); <attribute>_kept names the earlier response an attribute is kept from."

// kept is the Kept column of attribute attr of a Dimension table, added
// by migration 3.
func kept(attr string) Column {
	return Column{Name: KeptColumn(attr), Type: Seen, Nullable: true, Since: 3, Computed: true,
		Doc: fmt.Sprintf("null when the latest response naming it (last_seen_at, response_id) gave %[1]s, or none did; else the earlier response %[1]s is kept from, later ones having left it out: when it was observed (%[2]s) and its id (%[3]s)", attr, SeenAt, SeenResponse)}
}

// The contract tables (docs/design.md "Warehouse contract").
var (
	RawResponses = &Table{
		Name: "raw_responses", Kind: Append, Partition: "observed_date",
		Doc: "Every HTTP response as it arrived, before any parsing: the checkpoint and the replay source.",
		Key: []string{"response_id"},
		Columns: []Column{
			req("response_id", Varchar, "content-derived id: the same response landed twice is one row"),
			req("run_id", Varchar, "the run that landed it first"),
			req("product", Varchar, "schedule or tracking"),
			req("endpoint", Varchar, "schedule_port, schedule_p2p, schedule_vessel, shipment, consumption_current_period, consumption_periods"),
			req("resource", Varchar, "what the response is about: port:NLRTM, p2p:CNSHA-NLRTM, vessel:9321483, shipment:CT:MSCU1234566, consumption:schedule, …"),
			req("request", Varchar, "path and query of the request; never the key"),
			req("status", Integer, "HTTP status"),
			req("fetched_at", Timestamp, "our clock when the body was read (import: when imported)"),
			colObservedAt,
			opt("date_header", Timestamp, "the response's HTTP Date header"),
			req("attempt", Integer, "1 for a first attempt, more for a retry"),
			{Name: "source", Type: Varchar, Since: 1, Doc: "fetch (asked by a job), import (etalake import) or push (a vendor's webhook, etalake webhook serve): " +
				"only fetches answer a job's logical date", DocSince: 6, OldDoc: "fetch or import"},
			opt("logical_date", Date, "the logical date of the run that fetched it"),
			req("body_bytes", BigInt, "size of the body before compression"),
			req("body_sha256", Varchar, "SHA-256 of the body, hex"),
			// Stored uncompressed since migration 2: a zstd body gains
			// nothing from DuckDB's compression, and its analysis of every
			// body of a row group, each time a checkpoint rewrites the row
			// group landings append to, was the largest allocation of a
			// large import.
			{Name: "body", Type: Blob, Since: 1, Compression: "uncompressed", CompressionSince: 2,
				Nullable: true, NullableSince: 5, DocSince: 5, OldDoc: "the body, zstd-compressed",
				Doc: "the body, zstd-compressed; NULL when it is kept in body_file"},
			colObservedDate,
			{Name: "next_page", Type: Varchar, Nullable: true, Since: 3, Doc: "path and query of the page after this one, when a paged answer names one " +
				"(Next-Page-Cursor, Link rel=next, or a next link or cursor in the body); NULL on the last page or an answer that is not paged"},
			{Name: "broken", Type: Varchar, Nullable: true, Since: 3, Doc: "NULL for a whole answer; else why a 2xx did not arrive whole " +
				"(a body shorter than its Content-Length, a connection broken in the body, JSON that does not parse): landed as the last of its " +
				"attempts, dead-lettered, and not an answer: the next job asks again, up to --max-reasks jobs per resource and date"},
			{Name: "paging_stop", Type: Varchar, Nullable: true, Since: 4, Doc: "NULL but on the page where a walk through a paged answer stopped before its end: " +
				"why (loop: a cursor seen twice; repeated page: a page holding the items of one seen before in the walk, under a new cursor; " +
				"empty page: a page without items named a next one; page limit: --max-pages pages; off host: the next page on another host) " +
				"and what was seen. The resource is not answered for its date: the next job resumes at next_page when it is not landed, else asks again from the first page, " +
				"up to --max-reasks jobs",
				DocSince: 9, OldDoc: "NULL but on the page where a walk through a paged answer stopped before its end: " +
					"why (loop: a cursor seen twice; empty page: a page without items named a next one; page limit: --max-pages pages; off host: the next page on another host) " +
					"and what was seen. The resource is not answered for its date: the next job resumes at next_page when it is not landed, else asks again from the first page, " +
					"up to --max-reasks jobs"},
			{Name: "body_file", Type: Varchar, Nullable: true, Since: 5, Doc: "NULL when the body is in body; else the file that holds it, " +
				"zstd-compressed, relative to the warehouse directory (bodies/<body_sha256>.zst): a body larger than --max-body when it arrived, " +
				"streamed to disk and never held whole in memory. Read it with zstd -dc, or replay with a larger --max-body to derive it"},
			{Name: "segment", Type: Varchar, Nullable: true, Since: 8, Doc: "the body segment that holds the response, relative to the warehouse directory " +
				"(bodies/segments/<name>.parquet: the responses a publish added, their bodies as they arrived, Parquet compressed), once a publish has written it; " +
				"NULL before. The writer's database then keeps no copy of the body (body NULL); readers read raw_responses from the segments " +
				"(parquet/raw_responses/), each body as it arrived"},
		},
	}
	DeadLetters = &Table{
		Name: "dead_letters", Kind: Append, Partition: "at_date",
		Doc: "Bodies and records that failed to decode or validate; their raw response is kept.",
		Key: []string{"response_id", "record", "reason"},
		Columns: []Column{
			colResponseID,
			req("record", Varchar, "where in the body: empty for the whole body, else a path such as containers[0].events[3]"),
			req("reason", Varchar, "what was wrong"),
			req("endpoint", Varchar, "endpoint of the response"),
			req("at", Timestamp, "observed_at of the response"),
			req("at_date", Date, "UTC date of at (partition)"),
		},
	}
	ETLRuns = &Table{
		Name: "etl_runs", Kind: Ledger, Partition: "started_date",
		Doc: "One row per run: what it asked, spent, loaded, and how it ended.",
		Key: []string{"run_id"},
		Columns: []Column{
			req("run_id", Varchar, "unique id of the run"),
			{Name: "job", Type: Varchar, Since: 1, Doc: "run, backfill or demo (the jobs that fetch), import, replay, or track (a change of the tracked set by hand: etalake track add, rm)",
				DocSince: 5, OldDoc: "run, backfill, replay, import, demo"},
			opt("logical_date", Date, "the date the run is for"),
			req("started_at", Timestamp, "wall clock at start"),
			opt("ended_at", Timestamp, "wall clock at the end; null while running or after a crash"),
			req("status", Varchar, "running, ok, partial, failed"),
			opt("exit_code", Integer, "the process exit code"),
			opt("stop_reason", Varchar, "why the run stopped early (cap, quota, error), if it did"),
			req("requests", BigInt, "HTTP requests sent, retries included"),
			opt("requests_by_status", JSON, `{"200": n, "404": n, …}`),
			req("credits_spent_schedule", BigInt, "schedule credits charged, by our count"),
			{Name: "credits_uncertain_schedule", Type: BigInt, Since: 1, Doc: "schedule requests that timed out or whose 2xx answer broke in transfer: possibly charged",
				DocSince: 3, OldDoc: "schedule requests that timed out: possibly charged"},
			req("calls_tracking", BigInt, "tracking calls charged, by our count"),
			{Name: "calls_uncertain_tracking", Type: BigInt, Since: 1, Doc: "tracking calls that timed out or whose 2xx answer broke in transfer: possibly charged",
				DocSince: 3, OldDoc: "tracking calls that timed out: possibly charged"},
			opt("balance_schedule_before", BigInt, "schedule credits the server reported before the run"),
			opt("balance_schedule_after", BigInt, "… and after"),
			opt("balance_tracking_before", BigInt, "tracking credits the server reported before the run"),
			opt("balance_tracking_after", BigInt, "… and after"),
			opt("drift_schedule", BigInt, "(before − after) − our count: credits the server charged that we did not count"),
			opt("drift_tracking", BigInt, "the same for tracking"),
			opt("rows_loaded", JSON, `rows loaded per table, {"eta_observations": n, …}`),
			opt("duration_seconds", Double, "ended_at − started_at"),
			opt("args", JSON, "the selection the run was given"),
			opt("error", Varchar, "the error that ended the run, if any"),
			req("version", Varchar, "etalake version"),
			req("started_date", Date, "UTC date of started_at (partition)"),
			{Name: "shortfalls", Type: JSON, Nullable: true, Since: 3, Doc: `what the run did not get, by reason, when anything: ` +
				`{"dead_letters": n, "responses_not_derived": n, "failed_after_retries": n, "broken_answers": n, "not_asked_again": n, ` +
				`"stopped_unasked": n, "skipped_input_rows": n}; any of them makes the run partial (status, exit_code 3)`},
			{Name: "given_up", Type: JSON, Nullable: true, Since: 5, Doc: `the resources given up for logical_date when the run ended, when any: ` +
				`their answer stayed broken in transfer or stopped paging in --max-reasks jobs, and the next jobs of the date ask them only once ` +
				`the service answers their product well again; each with the command that asks it again now: ` +
				`[{"resource": "port:NLRTM", "failed_jobs": 3, "why": "…", "asked": false, "command": "etalake backfill --date 2026-01-05 --reask port:NLRTM"}] ` +
				`(asked: this run asked it, in vain; else it was not asked); see data_freshness`},
			{Name: "shard", Type: Varchar, Nullable: true, Since: 7, Doc: `the worker's part of the key's work, I/N (--shard): the resources whose ` +
				`FNV-1a 64-bit hash of their name (port:NLRTM, shipment:CT:MSCU1234566) modulo N is I-1; NULL when the run asked everything`},
		},
	}
	TrackedShipments = &Table{
		Name: "tracked_shipments", Kind: Ledger, Partition: "added_date",
		Doc: "The shipments the nightly run refreshes until they are finished (etalake track, run --shipments), " +
			"each with the night the refresh policy next asks it, as the latest nightly run decided.",
		DocSince: 6, OldDoc: "The shipments the nightly run refreshes until they are finished (etalake track, run --shipments).",
		Key: []string{"shipment_number", "shipment_type"},
		// Pulled from several workers that track one shipment, the row of
		// the worker that tracks it now and added it first; when every
		// worker removed it, the row of the last removal.
		PullOrder: "removed_at IS NOT NULL, removed_at DESC, added_at",
		Columns: []Column{
			req("shipment_number", Varchar, "container, bill of lading or booking number"),
			req("shipment_type", Varchar, "CT, BL or BK"),
			opt("sealine", Varchar, "SCAC given when it was added"),
			req("added_at", Timestamp, "when it was first added"),
			req("added_by", Varchar, "the run that added it, or track add"),
			opt("removed_at", Timestamp, "when it was removed (etalake track rm); null while tracked"),
			req("added_date", Date, "UTC date of added_at (partition)"),
			{Name: "next_due_date", Type: Date, Nullable: true, Since: 6, Doc: "the night (logical date) the nightly run next asks it, as the latest nightly run " +
				"decided from what the warehouse held at its end (see due_reason); a night before that run's own means it was due then and is not had yet " +
				"(deferred by the pace, or its answer failed); NULL: never again (finished, dropped) or no nightly run has decided yet"},
			{Name: "due_reason", Type: Varchar, Nullable: true, Since: 6, Doc: "why it is due on next_due_date: new (never observed), overdue (its ETA passed, " +
				"not arrived), near, mid, far, beyond (its tier by days until the ETA held), horizon-14 (and -7, -3, -1: the last night before its ETA comes " +
				"within that many days), at-pod (discharged, final destination pending), grace, no-eta, billed (asked this month, billed per shipment-month), " +
				"nightly (--refresh nightly); or, with no date, finished or dropped (billed per shipment-month: arrived, not asked in a new month)"},
			{Name: "deferred_since", Type: Date, Nullable: true, Since: 6, Doc: "the first night in a row it was due and deferred by the pace (--pace): " +
				"the night's allowance went to more valuable shipments; NULL when not deferred"},
			{Name: "due_as_of", Type: Date, Nullable: true, Since: 6, Doc: "the logical date of the nightly run that decided next_due_date and due_reason"},
		},
	}
	ConsumptionPeriods = &Table{
		Name: "consumption_periods", Kind: Append, Partition: "observed_date",
		Doc: "Credit periods of each product as the service reported them over time.",
		Key: []string{"product", "period_start", "observed_at"},
		Columns: []Column{
			req("product", Varchar, "schedule or tracking"),
			req("period_start", Timestamp, "start of the period"),
			opt("period_end", Timestamp, "end of the period"),
			opt("credits_initial", BigInt, "credits allocated at the start"),
			opt("credits", BigInt, "credits remaining"),
			opt("expired", Boolean, "whether the period had expired"),
			colObservedAt, colResponseID, colObservedDate,
		},
	}
	Locations = &Table{
		Name: "locations", Kind: Dimension, Partition: "first_seen_date", First: "first_seen_at", Last: "last_seen_at",
		Doc:      "Places (UN/LOCODE) named by any response." + dimensionRule,
		DocSince: 3, OldDoc: "Places (UN/LOCODE) named by any response.",
		Key: []string{"locode"},
		Columns: []Column{
			req("locode", Varchar, "UN/LOCODE"),
			opt("name", Varchar, "name"),
			opt("state", Varchar, "region or state"),
			opt("country", Varchar, "country name"),
			opt("country_code", Varchar, "ISO 3166 alpha-2"),
			opt("lat", Double, "latitude"),
			opt("lng", Double, "longitude"),
			opt("timezone", Varchar, "IANA time zone"),
			colFirstSeen, colLastSeen, colLatestResponse, colFirstSeenDate,
			kept("name"), kept("state"), kept("country"), kept("country_code"), kept("lat"), kept("lng"), kept("timezone"),
		},
	}
	Facilities = &Table{
		Name: "facilities", Kind: Dimension, Partition: "first_seen_date", First: "first_seen_at", Last: "last_seen_at",
		Doc:      "Terminals and depots named by any response." + dimensionRule,
		DocSince: 3, OldDoc: "Terminals and depots named by any response.",
		Key: []string{"facility_key"},
		Columns: []Column{
			req("facility_key", Varchar, "LOCODE:SMDG, else LOCODE:BIC, else LOCODE-or-country:NAME"),
			opt("name", Varchar, "name"),
			opt("country_code", Varchar, "ISO 3166 alpha-2"),
			opt("locode", Varchar, "UN/LOCODE of the place"),
			opt("bic_code", Varchar, "BIC facility code"),
			opt("smdg_code", Varchar, "SMDG terminal code"),
			opt("lat", Double, "latitude"),
			opt("lng", Double, "longitude"),
			colFirstSeen, colLastSeen, colLatestResponse, colFirstSeenDate,
			kept("name"), kept("country_code"), kept("locode"), kept("bic_code"), kept("smdg_code"), kept("lat"), kept("lng"),
		},
	}
	Vessels = &Table{
		Name: "vessels", Kind: Dimension, Partition: "first_seen_date", First: "first_seen_at", Last: "last_seen_at",
		Doc:      "Vessels named by any response, by IMO number." + dimensionRule,
		DocSince: 3, OldDoc: "Vessels named by any response, by IMO number.",
		Key: []string{"imo"},
		Columns: []Column{
			req("imo", BigInt, "IMO number"),
			opt("name", Varchar, "name"),
			opt("call_sign", Varchar, "call sign"),
			opt("mmsi", BigInt, "MMSI"),
			opt("flag", Varchar, "flag state, ISO 3166 alpha-2"),
			colFirstSeen, colLastSeen, colLatestResponse, colFirstSeenDate,
			kept("name"), kept("call_sign"), kept("mmsi"), kept("flag"),
		},
	}
	Shipments = &Table{
		Name: "shipments", Kind: Latest, Partition: "first_observed_date", First: "first_observed_at", Last: "last_observed_at",
		Doc: "Tracked shipments, latest state.",
		Key: []string{"shipment_number", "shipment_type"},
		Columns: []Column{
			req("shipment_number", Varchar, "container, bill of lading or booking number"),
			req("shipment_type", Varchar, "CT, BL or BK"),
			opt("sealine", Varchar, "SCAC of the shipping line"),
			opt("sealine_name", Varchar, "name of the shipping line"),
			opt("shipping_status", Varchar, "the service's status of the shipment"),
			opt("prepol_locode", Varchar, "place of receipt before the port of loading"),
			opt("prepol_date", Timestamp, "date at prepol"),
			opt("prepol_actual", Boolean, "prepol_date is actual"),
			opt("pol_locode", Varchar, "port of loading"),
			opt("pol_date", Timestamp, "date at the port of loading"),
			opt("pol_actual", Boolean, "pol_date is actual"),
			opt("pod_locode", Varchar, "port of discharge"),
			opt("pod_date", Timestamp, "arrival at the port of discharge: the carrier's ETA, or the actual"),
			opt("pod_actual", Boolean, "pod_date is actual"),
			opt("pod_predictive_eta", Timestamp, "the service's predictive ETA (only within 3 days of arrival)"),
			opt("postpod_locode", Varchar, "final destination"),
			opt("postpod_date", Timestamp, "arrival at the final destination"),
			opt("postpod_actual", Boolean, "postpod_date is actual"),
			req("container_count", Integer, "containers in the response"),
			opt("updated_at", Timestamp, "the service's metadata.updatedAt"),
			colFirstObserved, colLastObserved, colResponseID, colFirstObsDate,
			{Name: "updated_at_zone_assumed", Type: Varchar, Nullable: true, Since: 3, Doc: "NULL when updated_at was sent with its UTC offset (or is NULL); " +
				"else UTC, the zone it was read in: metadata.updatedAt names no place"},
		},
	}
	ETAObservations = &Table{
		Name: "eta_observations", Kind: Append, Partition: "observed_date",
		Doc: "Every ETA as it was observed: the history the accuracy views are built on.",
		Key: []string{"shipment_number", "shipment_type", "target", "source", "observed_at"},
		Columns: []Column{
			req("shipment_number", Varchar, "shipment"),
			req("shipment_type", Varchar, "CT, BL or BK"),
			req("target", Varchar, "PREPOL, POL, POD or POSTPOD"),
			req("source", Varchar, "CARRIER (the route date) or PREDICTIVE (the service's predictiveEta)"),
			colObservedAt,
			opt("locode", Varchar, "the place of the target"),
			req("eta", Timestamp, "the estimated (or actual) time"),
			{Name: "is_actual", Type: Boolean, Since: 1, Doc: "eta is the actual time: the route member's actual; null or absent is taken as false (estimated)",
				DocSince: 3, OldDoc: "eta is the actual time"},
			colResponseID, colObservedDate,
			{Name: "eta_zone_assumed", Type: Varchar, Nullable: true, Since: 3, Doc: zoneAssumedDoc("eta", "the place of the target (route.<target>.location.timezone)")},
		},
	}
	Containers = &Table{
		Name: "containers", Kind: Latest, Partition: "first_observed_date", First: "first_observed_at", Last: "last_observed_at",
		Doc: "Containers of tracked shipments, latest state.",
		Key: []string{"shipment_number", "container_number"},
		Columns: []Column{
			req("shipment_number", Varchar, "shipment"),
			req("container_number", Varchar, "ISO 6346 container number"),
			req("shipment_type", Varchar, "CT, BL or BK"),
			opt("iso_code", Varchar, "ISO 6346 size and type code"),
			opt("status", Varchar, "the service's container status"),
			colFirstObserved, colLastObserved, colResponseID, colFirstObsDate,
		},
	}
	ContainerEvents = &Table{
		Name: "container_events", Kind: Latest, Partition: "first_observed_date", First: "first_observed_at", Last: "last_observed_at",
		Doc: "Container events, latest version of each (estimated until actual).",
		Key: []string{"shipment_number", "container_number", "event_key"},
		Columns: []Column{
			req("shipment_number", Varchar, "shipment"),
			req("container_number", Varchar, "container"),
			{Name: "event_key", Type: Varchar, Since: 1, Doc: eventKeyDoc,
				DocSince: 3, OldDoc: "stable identity of the event: container, type, code, status, place, vessel, voyage, occurrence; never its date"},
			req("shipment_type", Varchar, "CT, BL or BK"),
			{Name: "event_type", Type: Varchar, Nullable: true, Since: 1, NullableSince: 3, DocSince: 3, OldDoc: "EQUIPMENT, TRANSPORT, …",
				Doc: "EQUIPMENT, TRANSPORT, … upper-cased; when not sent, that of event_code (EQUIPMENT for GTOT, GTIN, LOAD, DISC; TRANSPORT for DEPA, ARRI); else NULL"},
			{Name: "event_code", Type: Varchar, Nullable: true, Since: 1, NullableSince: 3, DocSince: 3, OldDoc: "DCSA code: GTOT, GTIN, LOAD, DEPA, ARRI, DISC, …",
				Doc: "DCSA code, upper-cased: GTOT, GTIN, LOAD, DEPA, ARRI, DISC, …; when not sent, the code of status (CEP, CGO → GTOT; CGI, CER → GTIN; " +
					"CLL, CLT → LOAD; VDL, VDT → DEPA; VAT, VAD → ARRI; CDT, CDD → DISC); else NULL"},
			opt("status", Varchar, "the service's short status code"),
			opt("description", Varchar, "human-readable label"),
			opt("locode", Varchar, "place of the event"),
			opt("facility_key", Varchar, "facility of the event (facilities)"),
			opt("event_at", Timestamp, "when it happened, or is estimated to"),
			{Name: "is_actual", Type: Boolean, Nullable: true, Since: 1, NullableSince: 3, DocSince: 3, OldDoc: "event_at is actual",
				Doc: "event_at is actual; NULL when the service did not say (isActual null or absent)"},
			req("is_additional_event", Boolean, "flagged additional by the service"),
			opt("route_type", Varchar, "LAND or SEA"),
			opt("transport_type", Varchar, "VESSEL, TRUCK, RAIL, …"),
			opt("vessel_imo", BigInt, "vessel (vessels)"),
			opt("vessel_name", Varchar, "vessel name as given"),
			opt("voyage", Varchar, "voyage number"),
			{Name: "occurrence", Type: Integer, Since: 1, DocSince: 3, OldDoc: "0 for the first event of this identity in the container, 1 for a second, …",
				Doc: "0 for the container's first event of this code at this place in the response, 1 for a second (a second LOAD at the same port), …"},
			colFirstObserved, colLastObserved, colResponseID, colFirstObsDate,
			{Name: "event_at_zone_assumed", Type: Varchar, Nullable: true, Since: 3, Doc: zoneAssumedDoc("event_at", eventZoneSource)},
		},
	}
	EventObservations = &Table{
		Name: "event_observations", Kind: Append, Partition: "observed_date",
		Doc: "Every container event date as it was observed.",
		Key: []string{"event_key", "observed_at"},
		Columns: []Column{
			req("event_key", Varchar, "the event (container_events); it names the container's event, so one container tracked under two shipment numbers and observed at the same instant is one row"),
			colObservedAt,
			req("shipment_number", Varchar, "shipment"),
			req("container_number", Varchar, "container"),
			opt("event_at", Timestamp, "the date then"),
			{Name: "is_actual", Type: Boolean, Nullable: true, Since: 1, NullableSince: 3, DocSince: 3, OldDoc: "event_at was actual then",
				Doc: "event_at was actual then; NULL when the service did not say (isActual null or absent)"},
			colResponseID, colObservedDate,
			{Name: "event_at_zone_assumed", Type: Varchar, Nullable: true, Since: 3, Doc: zoneAssumedDoc("event_at", eventZoneSource)},
		},
	}
	PortCalls = &Table{
		Name: "port_calls", Kind: Append, Partition: "observed_date",
		Doc: "Every schedule timestamp as observed, from by-port, port-to-port and by-vessel queries.",
		Key: []string{"query", "port_locode", "vessel_imo", "voyage", "event_type_code", "classifier", "observed_at"},
		Columns: []Column{
			req("query", Varchar, "PORT, P2P or VESSEL"),
			req("port_locode", Varchar, "the port called"),
			req("vessel_imo", BigInt, "the vessel"),
			req("voyage", Varchar, "the voyage of the timestamp: import voyage for ARRI, export voyage for DEPA; empty when not given"),
			{Name: "event_type_code", Type: Varchar, Since: 1, DocSince: 4, OldDoc: "ARRI or DEPA",
				Doc: "ARRI or DEPA, upper-cased (a schedule's arri is ARRI)"},
			{Name: "classifier", Type: Varchar, Since: 1, DocSince: 4, OldDoc: "PLN, EST or ACT",
				Doc: "PLN (planned), EST (estimated) or ACT (actual), upper-cased (a schedule's pln is PLN)"},
			colObservedAt,
			req("carrier", Varchar, "SCAC of the carrier"),
			opt("service_code", Varchar, "carrier service code"),
			opt("service_name", Varchar, "carrier service name"),
			opt("vessel_name", Varchar, "vessel name as given"),
			opt("import_voyage", Varchar, "import voyage number"),
			opt("export_voyage", Varchar, "export voyage number"),
			opt("facility_key", Varchar, "terminal (facilities)"),
			req("event_at", Timestamp, "the timestamp"),
			colResponseID, colObservedDate,
			{Name: "event_at_zone_assumed", Type: Varchar, Nullable: true, Since: 4, Doc: zoneAssumedDoc("event_at", portZoneSource)},
		},
	}
)

// Tables lists every contract table in load order: dimensions before the
// facts that name them.
var Tables = []*Table{
	RawResponses, DeadLetters, ETLRuns, TrackedShipments, ConsumptionPeriods,
	Locations, Facilities, Vessels,
	Shipments, ETAObservations, Containers, ContainerEvents, EventObservations, PortCalls,
}

// ByName returns the named table.
func ByName(name string) (*Table, bool) {
	for _, t := range Tables {
		if t.Name == name {
			return t, true
		}
	}
	return nil, false
}

// Derived lists the tables rebuilt from the raw landing by replay: all but
// raw_responses and the ledgers (etl_runs, tracked_shipments).
func Derived() []*Table {
	var out []*Table
	for _, t := range Tables {
		if t != RawResponses && t.Kind != Ledger {
			out = append(out, t)
		}
	}
	return out
}

// Version is the latest migration version the definitions need.
func Version() int {
	v := 1
	for _, t := range Tables {
		for _, c := range t.Columns {
			v = max(v, c.Since, c.CompressionSince, c.NullableSince, c.DocSince)
		}
	}
	return v
}

// Validate checks every definition; a test calls it.
func Validate() error {
	names := map[string]bool{}
	for _, t := range Tables {
		if names[t.Name] {
			return fmt.Errorf("table %s defined twice", t.Name)
		}
		names[t.Name] = true
		if err := t.validate(); err != nil {
			return err
		}
	}
	return nil
}
