// Package slowtest sorts the tests into three tiers, so that the
// README's test command stays a quick loop while CI still runs everything:
//
//   - the short tier, go test -short (the README's command, about 3
//     minutes on 2 cores): every test that takes under a few seconds;
//   - the full tier, go test without -short: also the tests that Long
//     marks, which take seconds each (demos of several nights, lake
//     commits, processes started and stopped);
//   - the slow tier, ETALAKE_SLOW_TESTS=1: also the tests that Require
//     marks, statistical tests and tests over large inputs, which take
//     minutes.
//
// .ci/run runs the short tier, then the full and the slow tiers together.
// A test skipped by its tier says so, and how to run it.
package slowtest
