// Command fleet is the benchmark of a coordinated fleet: three processes
// of one key share its rate window through the coordinator (Postgres,
// --coordination) and ask the simulator at the service's real window, 10
// requests per 10 s, on a machine loaded on purpose; it counts the 429s
// the simulator answered and how close the fleet came to the limit.
//
//	go run -tags duckdb_arrow ./bench/fleet -db postgres://etalake@127.0.0.1:5432/postgres -runs 30
//
// Each run starts a simulator (sim.Service over a loopback listener) and
// three copies of this program as workers, each with its own connection
// to the coordinator, a limiter on the key's shared window and -workers
// goroutines sending -requests calls in all; -burn goroutines spin on the
// CPU meanwhile. A run uses a key of its own, so that no run waits for
// the window of the one before. Per run it reports the requests the
// simulator saw, the 429s, the peak in any window, and the headroom: of
// every request, how much later than the end of the window of the N-th
// before it it arrived, by the simulator's clock of arrival — the
// smallest, over the run; a negative headroom is a request the server
// refuses. BENCHMARKS.md ("A coordinated fleet") has its figures; the
// slow tier runs a few runs (ETALAKE_SLOW_TESTS=1).
package main
