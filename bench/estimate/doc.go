// Command estimate is the benchmark of etalake's own arrival estimate
// (issue 43, package estimate): on simulated worlds with realistic ETA
// errors, how much closer to the arrival it is than the carrier's ETA and
// the service's predictive one, and whether its intervals hold.
//
//	go run -tags duckdb_arrow ./bench/estimate                   # 3 seeds × 7 worlds, 90 days, 800 shipments
//	go run -tags duckdb_arrow ./bench/estimate -variants default -seeds 21,22,23
//
// Each world is `etalake demo --seed S --days D --shipments N` with the
// simulator's realistic ETA errors (sim.DefaultETAErrors), then the same
// with one setting changed at a time: drift off and high (0, 18 h per 30
// days), tails off and heavy (normal, Student-t of 2.5 degrees of
// freedom), lane bias off and high (0, 24 h). Every night is a real job
// in-process (jobs.Demo), and the estimate is the warehouse's own,
// computed night by night as a user's would be.
//
// It reads the rows of eta_accuracy at 1, 3, 7 and 14 days where the
// estimate (source ETALAKE) and the carrier's ETA are both usable, pools
// the seeds of a world, and prints per horizon: each source's MAE on the
// same rows, the estimate's difference from the best source (the lower
// MAE: the carrier's, or at 1 day the predictive ETA on the rows that
// have it) with a 95 % interval clustered by vessel call (CR1, t with
// clusters − 1 degrees of freedom), the coverage of its 80 % and 95 %
// intervals (Wilson over the calls), and by carrier the difference from
// the carrier's own ETA; then how the difference from the carrier's ETA
// goes with the arrivals of that carrier the estimate had learned from;
// and the acceptance, each line PASS or FAIL.
package main
