// Command pacing is the refresh policy's benchmark (issue 31): what each
// way of choosing the tracked shipments asked each night spends in
// tracking credits, and what the warehouse then knew, judged against the
// simulated world's truth.
//
//	go run -tags duckdb_arrow ./bench/pacing -seeds 7,8 -nights 60
//	go run -tags duckdb_arrow ./bench/pacing -seeds 7,8 -nights 60 -jumps off
//	go run -tags duckdb_arrow ./bench/pacing -seeds 7,8 -policies paced -pace-share 0.3
//
// It measures policy, not time: everything runs in-process, the
// simulator (sim.Service) over httptest with its virtual clock frozen at
// each night in turn, the nightly job (jobs.RunJob) against it through
// the real client at 5 000 requests a second, one warehouse per seed and
// policy.
//
// # The worlds and the nights
//
// A world is sim.NewWorld with the seed, -shipments (400) and -nights + 7
// days — the world of `etalake demo --seed S --days N` — with its jumps
// (rolled boxes, omitted calls, swapped vessels) unless -jumps off. Night
// d's run is at the world's start + d days, 02:00 UTC (the demo's
// nights). A shipment joins the tracked set on the first night the
// service shows it not delivered, as an operations team adds each new
// booking (on the first night: every shipment on its way); no schedule
// is asked (schedules are the other product's credits, and change nothing
// the tracking policy knows).
//
// # The policies
//
//   - nightly: jobs.NightlyRefresh, every tracked shipment not finished
//     every night, with the 72 h grace after its arrival: what etalake did
//     before issue 31, the reference;
//   - adaptive: jobs.DefaultRefresh, the default, its key with 50 000
//     credits a month, so that the pace (on by default, the balance
//     being reported) never binds;
//   - paced: the default, its key with C credits a month, C chosen so that
//     the pace's allowances add up to half (-pace-share) of what nightly
//     spent on the same world (pacedCredits: a run spending exactly its allowance each
//     night keeps it constant, (C − reserve) ÷ the nights left in the
//     month from its first night in it; the periods are calendar months);
//   - webhooks: the default with plenty of credits, and the simulator's
//     webhooks (sim.Pusher: a container discharged at its POD, its POD date
//     moved by more than 24 h) sent before each night's run to a
//     webhook.Receiver landing them through jobs.PushLanding, as `etalake
//     webhook serve` does; the warehouse is closed and opened again
//     between nights, since a writer's Open lands what receivers took.
//
// # The metrics
//
// A is a shipment's true arrival at its port of discharge: the actual
// arrival of the last leg of the itinerary it sailed (sim.Truth, jumps
// included). Every metric is computed with SQL on the warehouse as the
// last night's run published it, the truth and the nights in temporary
// tables (metrics.go).
//
//   - credits: the tracking credits the simulator charged the key over
//     the whole run (its ledger).
//   - in-transit ETA error under 7 days out: over every pair of a night's
//     run n and a shipment tracked by then with n < A < n + 7 days, |E −
//     A| in hours, where E is the carrier's POD ETA the warehouse held at
//     n: the latest eta_observations row (target POD, source CARRIER, not
//     actual) observed at or before n; the mean over the pairs.
//   - days to see an arrival: over the shipments tracked whose A falls
//     after the first night's run and at or before the last's, the first
//     night's run by which eta_observations holds an actual arrival at
//     the POD (asked, or pushed: a push is observed at its event's time
//     and held from the next writer on), less A, in days; the mean. Those
//     not seen by the last night are counted apart.
//   - each carrier's error at h (1, 3, 7, 14 days): eta_accuracy's rows of
//     the POD and the carrier's ETA (the actual there is the warehouse's,
//     shipments.pod_date: the benchmark checks it is the truth's), the
//     mean of |error_hours| over those not null — an ETA observed at or
//     before the cut, A − h, and no more than 48 h before it, the ETAs the
//     report uses ("usable") — per carrier (shipments.sealine).
//   - outside the report's POD horizons: the carrier's POSTPOD ETAs
//     usable 1 day before the arrival at the final destination
//     (eta_accuracy, target POSTPOD, error_hours not null), and the
//     revisions of the carrier's POD ETA seen per shipment arrived
//     (eta_accuracy_known.revisions, its mean): what a shipment asked
//     less often shows less of.
//   - age at h: how long before the cut the ETA eta_accuracy takes at h
//     was observed, (A − h) − observed_at, in days, stale ones included;
//     a policy's extra age is the mean, over the shipments with an ETA at
//     h under both it and nightly, of its age less nightly's.
//
// Each carrier's difference from nightly comes with a paired bootstrap
// over shipments (-boot draws, seeded): a draw takes as many shipments as
// either policy has a usable ETA for, with replacement, and computes both
// MAEs over it, each over the drawn shipments it has a usable ETA for; its
// 2.5 and 97.5 percentiles are the interval.
//
// The scale of ± 0.5 h: "nightly, a night older" is nightly's own
// warehouse read as if every ETA had been taken a day before each cut
// (the latest observation at or before A − h − 1 day, judged against
// the cut as eta_accuracy judges it, 48 h staleness included). It costs
// no run, and its difference from nightly, per carrier and horizon with
// the same bootstrap, is how far a carrier's error moves when every ETA
// is exactly one night older: what any policy asking less than nightly
// risks at most at a horizon whose ETAs it keeps a night old.
//
// # The acceptance
//
// The issue's, a policy against nightly on the same world: credits at
// most 50 % of nightly's; in-transit error at most nightly's + 5 %; days
// to see an arrival at most nightly's + 0.25; extra age at most 0.75 day
// at each horizon; each carrier's error at each horizon within ± 0.5 h of
// nightly's. The report says which a policy fails, world by world.
//
// The warehouses go under -keep (kept: `etalake sql --warehouse DIR`
// reads them) or a temporary directory, removed. 60 nights of 400
// shipments take about a minute a policy on the project machine.
package main
