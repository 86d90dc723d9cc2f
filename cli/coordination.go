package cli

import (
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/etalake/etalake/coord"
	"github.com/etalake/etalake/extract"
	"github.com/etalake/etalake/wire"
)

// coordinationFlags are the settings of the coordinator that shares a
// key's rate window and credit cap between machines.
func coordinationFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Category: catCredits, Name: coord.URLFlag, EnvVars: []string{coord.URLEnv}, Usage: "postgres://user@host:port/db shared by every process of the key, on any machine: the rate window and the credit cap (--max-credits, --max-tracking-calls, for the service's period) become the key's, granted by the database's clock (replaces --state-dir); the key reaches the database only as its id"},
		&cli.DurationFlag{Category: catCredits, Name: coord.LeaseFlag, EnvVars: []string{coord.LeaseEnv}, Value: coord.DefaultLease, Usage: "with --" + coord.URLFlag + ", how long a credit reserved by a process that no longer settles it, yet still holds its session, stays taken (one that died or lost the database is counted uncertain at once), 1m to 24h"},
		&cli.DurationFlag{Category: catCredits, Name: coord.WaitFlag, EnvVars: []string{coord.WaitEnv}, Value: coord.DefaultWait, Usage: "with --" + coord.URLFlag + ", how long a job waits for credits other live workers of the key have in flight when only they keep it from the cap, saying so in the log, before it stops the product (exit 3), 0s to 24h"},
	}
}

// coordinationConfig reads the coordinator's settings, validated; the
// zero Config when none is set.
func coordinationConfig(c *cli.Context) (coord.Config, error) {
	cfg := coord.Config{URL: c.String(coord.URLFlag), Lease: c.Duration(coord.LeaseFlag), Wait: c.Duration(coord.WaitFlag)}
	if cfg.Wait == 0 {
		cfg.Wait = coord.NoWait // 0s said: no wait, not the default
	}
	if err := cfg.Validate(); err != nil {
		return cfg, usageErr{err}
	}
	return cfg, nil
}

// coordinate puts cfg's limiter and budgets on the coordinator: the
// window and the ledgers of the key, by its id. It opens a pool that
// stays open until the process ends, as the state directory's lock does.
func coordinate(c *cli.Context, log *slog.Logger, cc coord.Config, cfg *extract.Config, rate extract.Rate, caps [2]int64) error {
	cc.Log = log
	co, err := coord.Open(c.Context, cc)
	if errors.Is(err, coord.ErrSetup) {
		// A database that does not exist, a user refused: the setting is
		// the user's to fix, and no retry of the job mends it (exit 2).
		return usageErr{fmt.Errorf("%s (--%s): %w; check the database's name and the user in the URL", coord.URLEnv, coord.URLFlag, err)}
	}
	if err != nil {
		// Not extract.ErrCoordinatorLost: a coordinator out of reach
		// before anything was asked is a setup that failed (exit 1), not
		// a job cut short.
		return fmt.Errorf("%s (--%s): %w", coord.URLEnv, coord.URLFlag, err)
	}
	id := cfg.Key.Fingerprint()
	win, err := co.Window(id)
	if err != nil {
		return err
	}
	if cfg.Limiter, err = extract.NewLimiter(extract.LimiterConfig{Rate: rate, Shared: win}); err != nil {
		return fmt.Errorf("rate limiter: %w", err)
	}
	for i, p := range []wire.Product{wire.ProductSchedule, wire.ProductTracking} {
		ledger, err := co.Ledger(id, p)
		if err != nil {
			return err
		}
		b := extract.NewSharedBudget(p, caps[i], ledger)
		if p == wire.ProductSchedule {
			cfg.ScheduleBudget = b
		} else {
			cfg.TrackingBudget = b
		}
	}
	return nil
}

// coordinationLease is for the log line: the lease in force.
func coordinationLease(cc coord.Config) time.Duration {
	if cc.Lease == 0 {
		return coord.DefaultLease
	}
	return cc.Lease
}
