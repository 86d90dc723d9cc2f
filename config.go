package main

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/KimMachineGun/automemlimit/memlimit"

	"github.com/etalake/etalake/extract"
	"github.com/etalake/etalake/internal/bytesize"
	"github.com/etalake/etalake/jobs"
	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/wire"
)

// Names of the flags shared by every command that talks to the service.
const (
	flagScheduleURL = "schedule-url"
	flagTrackingURL = "tracking-url"
	flagKeyFile     = "api-key-file"
	flagAuth        = "auth"
	flagRate        = "rate"
	flagTimeout     = "timeout"
	flagStateDir    = "state-dir"
	flagPaths       = "path"
	flagKeyRefused  = "api-key"
	flagScheduleAPI = "schedule-api"
	flagPageSize    = "page-size"
	flagMaxPages    = "max-pages"
	flagDays        = "schedule-days"
)

// Names of the flags of the jobs that fetch (run, backfill).
const (
	flagMaxReasks        = "max-reasks"
	flagReask            = "reask"
	flagGrace            = "grace"
	flagMaxCredits       = "max-credits"
	flagMaxTrackingCalls = "max-tracking-calls"
)

// sourceFlags are the flags of every command that talks to the service,
// each also read from an ETALAKE_* variable. They are built afresh for each
// command: cli stores parsed values in the flag values. There is
// deliberately no flag for the key itself: --api-key exists, hidden, only
// to explain why it is refused.
func sourceFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: flagScheduleURL, EnvVars: []string{"ETALAKE_SCHEDULE_URL"}, Usage: "base URL of the schedule product: ending in /schedule/api/v1 (schedule API service), or the API root the standard's /v1/… paths hang under (dcsa-cs-1.0); unset in a tracking-only setup, where a job that asks a schedule stops before any request (exit 2)"},
		&cli.StringFlag{Name: flagScheduleAPI, EnvVars: []string{"ETALAKE_SCHEDULE_API"}, Value: string(wire.ScheduleAPIService), Usage: "the schedule product's contract: service (docs/spec/schedules.md) or dcsa-cs-1.0 (DCSA Commercial Schedules 1.0: JSON arrays, Next-Page-Cursor pages, no balance endpoint: the cap is --max-credits)"},
		&cli.IntFlag{Name: flagPageSize, EnvVars: []string{"ETALAKE_PAGE_SIZE"}, Usage: "ask schedule answers in pages of at most N items, 1 to 10000 (the limit parameter; 0: the provider's default); every page is a request and a credit"},
		&cli.IntFlag{Name: flagMaxPages, EnvVars: []string{"ETALAKE_MAX_PAGES"}, Value: extract.DefaultMaxPages, Usage: "follow at most N pages of one answer, 1 to 10000: past them, or at a cursor seen twice, or at an empty page that names a next one, the resource stops (the pages landed are kept, the job ends partial, the next job resumes)"},
		&cli.IntFlag{Name: flagDays, EnvVars: []string{"ETALAKE_SCHEDULE_DAYS"}, Value: extract.DefaultScheduleDays, Usage: "the schedule window from the logical date, 1 to 366 days, for requests that take a range ({until} in path templates; dcsa-cs-1.0 vessel schedules and routings)"},
		&cli.StringFlag{Name: flagTrackingURL, EnvVars: []string{"ETALAKE_TRACKING_URL"}, Usage: "base URL of the tracking product, ending in /container-tracking/api/v2; unset in a schedule-only setup, where a job with shipments due stops before any request (exit 2)"},
		&cli.StringFlag{Name: flagKeyFile, EnvVars: []string{"ETALAKE_API_KEY_FILE"}, Usage: "read the API key from this file (else from ETALAKE_API_KEY)"},
		authFlag(),
		&cli.StringFlag{Name: flagRate, EnvVars: []string{"ETALAKE_RATE"}, Value: "10/10s", Usage: "the service's rate limit per key, N/DURATION (N 1 to 10000, DURATION at most 24h); every etalake process on this machine using the key shares it"},
		&cli.DurationFlag{Name: flagTimeout, EnvVars: []string{"ETALAKE_TIMEOUT"}, Value: extract.DefaultTimeout, Usage: "time limit of one HTTP attempt, 1s to 1h"},
		&cli.StringFlag{Name: flagStateDir, EnvVars: []string{"ETALAKE_STATE_DIR"}, Usage: "where the rate-limit state shared between processes lives (default: the user's state or cache directory)"},
		&cli.StringSliceFlag{Name: flagPaths, EnvVars: []string{"ETALAKE_PATHS"}, Usage: "override a path template, NAME=TEMPLATE (port, p2p, vessel, current-period, periods, shipment), relative to the product's URL and joined to it once; it may carry a query, {date} is the logical date and {until} the end of the schedule window: port=/v1/port-schedules?UNLocationCode={port}&date={date}; repeatable"},
		&cli.StringFlag{Name: flagKeyRefused, Hidden: true},
	}
}

// urlSetting names the setting of product p's URL, and how the URL ends.
func urlSetting(p wire.Product) (setting, ending string) {
	if p == wire.ProductTracking {
		return "ETALAKE_TRACKING_URL (--" + flagTrackingURL + ")", "/container-tracking/api/v2"
	}
	return "ETALAKE_SCHEDULE_URL (--" + flagScheduleURL + ")", "/schedule/api/v1"
}

// noURL is the usage error of a job that needs product p, whose URL is
// not set: what needs it (need), the setting, and the remedy.
func noURL(p wire.Product, need string) error {
	setting, ending := urlSetting(p)
	return usageErr{fmt.Errorf("%s but %s is not set: set it to the %s product's base URL (…%s); nothing was asked", need, setting, p, ending)}
}

// urlError words a job's *jobs.MissingURLError with the setting's
// variable and flag (exit 2).
func urlError(err error) error {
	var e *jobs.MissingURLError
	if errors.As(err, &e) {
		return noURL(e.Product, e.Due())
	}
	return err
}

// authFlag chooses how the key is sent, for the client and the simulator.
func authFlag() cli.Flag {
	return &cli.StringFlag{Name: flagAuth, EnvVars: []string{"ETALAKE_AUTH"}, Value: extract.AuthNameAPIKey,
		Usage: "how the provider wants the key: api-key (the API_KEY header), bearer (Authorization: Bearer KEY) or header:NAME (the key as the value of header NAME, e.g. header:X-API-Key); it goes in that header and no other"}
}

// readAuth reads --auth.
func readAuth(c *cli.Context) (extract.Auth, error) {
	a, err := extract.ParseAuth(c.String(flagAuth))
	if err != nil {
		return a, configError("ETALAKE_AUTH (--auth): %v", err)
	}
	return a, nil
}

// authHint adds to a 401 how the key was sent and the setting that
// changes it: a provider that wants it otherwise answers 401 too.
func authHint(err error, a extract.Auth) error {
	if !errors.Is(err, extract.ErrUnauthorized) {
		return err
	}
	return fmt.Errorf("%w\n(the key was sent in %s; if the provider wants it otherwise, set ETALAKE_AUTH or --auth: %s)", err, a.Want(), extract.AuthForms)
}

// readKey reads the API key from --api-key-file or ETALAKE_API_KEY.
func readKey(c *cli.Context) (extract.Key, error) {
	if c.IsSet(flagKeyRefused) {
		return extract.Key{}, configError("--api-key refused: a key on the command line is visible to every user of the machine (ps, shell history); set ETALAKE_API_KEY or pass --api-key-file FILE")
	}
	if path := c.String(flagKeyFile); path != "" {
		b, err := os.ReadFile(path)
		if err != nil {
			return extract.Key{}, configError("--api-key-file: %v", err)
		}
		k, err := extract.NewKey(string(b))
		if err != nil {
			return extract.Key{}, configError("--api-key-file %s: %v", path, err)
		}
		return k, nil
	}
	v, ok := os.LookupEnv("ETALAKE_API_KEY")
	if !ok {
		return extract.Key{}, configError("no API key: set ETALAKE_API_KEY or pass --api-key-file FILE")
	}
	k, err := extract.NewKey(v)
	if err != nil {
		return extract.Key{}, configError("ETALAKE_API_KEY: %v", err)
	}
	return k, nil
}

// newClient builds the service client from the shared flags: URLs, key,
// rate limiter shared across processes, paths and timeout; the caps bound
// its budgets (extract.Unlimited for none), and a body larger than
// maxDecode (0: any) is not decoded.
func newClient(c *cli.Context, log *slog.Logger, capSchedule, capTracking, maxDecode int64) (*extract.Client, error) {
	cfg := extract.Config{
		MaxDecode:   maxDecode,
		ScheduleURL: c.String(flagScheduleURL),
		TrackingURL: c.String(flagTrackingURL),
		UserAgent:   "etalake/" + version,

		ScheduleBudget: extract.NewBudget(wire.ProductSchedule, capSchedule),
		TrackingBudget: extract.NewBudget(wire.ProductTracking, capTracking),
	}
	if strings.TrimSpace(cfg.ScheduleURL) == "" && strings.TrimSpace(cfg.TrackingURL) == "" {
		return nil, configError("neither ETALAKE_SCHEDULE_URL (--schedule-url) nor ETALAKE_TRACKING_URL (--tracking-url) is set: want the base URL of the product you use, or both; try `etalake sim serve` for a local simulator")
	}
	var err error
	if cfg.Timeout, err = settingTimeout.read(c); err != nil {
		return nil, err
	}
	if cfg.PageSize, err = settingPageSize.read(c); err != nil {
		return nil, err
	}
	if cfg.MaxPages, err = settingMaxPages.read(c); err != nil {
		return nil, err
	}
	if cfg.ScheduleDays, err = settingScheduleDays.read(c); err != nil {
		return nil, err
	}
	rate, err := readRate(c)
	if err != nil {
		return nil, err
	}
	if cfg.Key, err = readKey(c); err != nil {
		return nil, err
	}
	if cfg.Auth, err = readAuth(c); err != nil {
		return nil, err
	}
	if cfg.ScheduleAPI, err = wire.ParseScheduleAPI(c.String(flagScheduleAPI)); err != nil {
		return nil, configError("ETALAKE_SCHEDULE_API (--schedule-api): %v", err)
	}
	cfg.Paths = cfg.ScheduleAPI.Paths()
	for _, p := range c.StringSlice(flagPaths) {
		if err := cfg.Paths.Set(p); err != nil {
			return nil, configError("--path: %v", err)
		}
	}
	dir := c.String(flagStateDir)
	if dir == "" {
		if dir, err = extract.DefaultStateDir(); err != nil {
			return nil, configError("no state directory for the shared rate limit (%v): set ETALAKE_STATE_DIR", err)
		}
	}
	if cfg.Limiter, err = extract.NewLimiter(extract.LimiterConfig{Rate: rate, Dir: dir, KeyID: cfg.Key.Fingerprint()}); err != nil {
		return nil, fmt.Errorf("rate limiter: %w", err)
	}
	client, err := extract.NewClient(cfg)
	if err != nil {
		return nil, usageErr{err}
	}
	log.Debug("client ready", "key", cfg.Key.Fingerprint(), "auth", cfg.Auth.String(), "rate", rate.String(), "state_dir", dir)
	return client, nil
}

// misconfigHint adds to an error that showed a product's URL or profile
// wrong (extract.ErrMisconfigured) which settings to check; other errors
// pass unchanged.
func misconfigHint(err error) error {
	var me *extract.MisconfigError
	if !errors.As(err, &me) {
		return err
	}
	hint := "check ETALAKE_TRACKING_URL (--tracking-url: the base ending in /container-tracking/api/v2) and any --path shipment=… override"
	if me.Product == wire.ProductSchedule {
		hint = fmt.Sprintf("check ETALAKE_SCHEDULE_URL (--schedule-url: for --schedule-api %s the base ending in /schedule/api/v1, for %s the API root the standard's /v1/… paths hang under), "+
			"ETALAKE_SCHEDULE_API (--schedule-api, now %s) and any --path override", wire.ScheduleAPIService, wire.ScheduleAPIDCSA, me.Profile)
	}
	return fmt.Errorf("%w\n  %s", err, hint)
}

// parseTime reads a flag time: RFC 3339 or a date (UTC midnight).
func parseTime(flag, s string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t.UTC(), nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	return time.Time{}, configError("--%s %q: want an RFC 3339 time (2026-01-05T00:00:00Z) or a date (2026-01-05)", flag, s)
}

// Names of the flags of the commands that open the warehouse.
const (
	flagWarehouse   = "warehouse"
	flagMemoryLimit = "memory-limit"
	flagMaxBody     = "max-body"
	flagLockTimeout = "lock-timeout"
)

// defaultLockTimeout is --lock-timeout's default: long enough for a
// backfill to wait out most of a nightly run's end, short enough that a
// scheduler sees a stuck warehouse the same night.
const defaultLockTimeout = 10 * time.Minute

// defaultMemoryLimit is --memory-limit's default: 1 GiB, or half the
// memory this process may use when that is less (README, "Memory").
const defaultMemoryLimit = load.DefaultMemoryLimit

func warehouseFlag() cli.Flag {
	return &cli.StringFlag{Name: flagWarehouse, EnvVars: []string{"ETALAKE_WAREHOUSE"}, Value: "./warehouse",
		Usage: "the warehouse directory: etalake.duckdb and the Parquet mirror under parquet/"}
}

// warehouseFlags are the flags of every command that opens the warehouse,
// the log's among them.
func warehouseFlags() []cli.Flag {
	return append([]cli.Flag{warehouseFlag(), memoryLimitFlag()}, logFlags()...)
}

// writerFlags are the flags of the commands that write the warehouse.
func writerFlags() []cli.Flag {
	return append(append(warehouseFlags(), lockTimeoutFlag()), lakeFlags()...)
}

func lockTimeoutFlag() cli.Flag {
	return &cli.DurationFlag{Name: flagLockTimeout, EnvVars: []string{"ETALAKE_LOCK_TIMEOUT"}, Value: defaultLockTimeout,
		Usage: "how long to wait for another job writing the warehouse before giving up with exit code 75 (busy), 0 to 24h; 0 does not wait"}
}

func memoryLimitFlag() cli.Flag {
	return &cli.StringFlag{Name: flagMemoryLimit, EnvVars: []string{"ETALAKE_MEMORY_LIMIT"}, DefaultText: "1GiB, or half the memory when that is less",
		Usage: "DuckDB's memory: a size (512MiB, 2GB) or a share of this machine's memory (40%, of the container's limit when it has one); past it, DuckDB spills to disk"}
}

func maxBodyFlag() cli.Flag {
	return &cli.StringFlag{Name: flagMaxBody, EnvVars: []string{"ETALAKE_MAX_BODY"}, Value: bytesize.Format(jobs.DefaultMaxBody),
		Usage: "the largest response body decoded; a larger one is streamed to disk as it arrives, never held whole in memory, kept under <warehouse>/bodies and dead-lettered, not decoded (replay with a larger --max-body derives it)"}
}

// warehouseOptions reads --memory-limit and --lock-timeout into the
// warehouse's options.
func warehouseOptions(c *cli.Context) (load.Options, error) {
	opt := load.DefaultOptions()
	// Readers have no --lock-timeout: they never wait (zero).
	var err error
	if opt.LockTimeout, err = settingLockTimeout.read(c); err != nil {
		return opt, err
	}
	s := c.String(flagMemoryLimit)
	if strings.TrimSpace(s) == "" {
		opt.MemoryLimit = defaultMemory()
		return opt, nil
	}
	n, err := parseMemoryLimit(s)
	if err != nil {
		return opt, configError("ETALAKE_MEMORY_LIMIT (--memory-limit) %q: %v", s, err)
	}
	opt.MemoryLimit = n
	return opt, nil
}

// minMemoryLimit is the least --memory-limit: a load's batch holds up to
// 40 MiB of rows, and below this DuckDB would refuse most of them for want
// of memory, leaving every load to be isolated a response at a time.
const minMemoryLimit = 64 << 20

// parseMemoryLimit reads a memory limit: a size, or a percentage of the
// memory this process may use (the container's limit when there is one,
// else the machine's).
func parseMemoryLimit(s string) (int64, error) {
	t := strings.TrimSpace(s)
	var n int64
	if p, ok := strings.CutSuffix(t, "%"); ok {
		pct, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || !(pct > 0 && pct <= 100) {
			return 0, fmt.Errorf("want a percentage above 0 and at most 100, such as 40%%")
		}
		total, err := availableMemory()
		if err != nil {
			return 0, fmt.Errorf("the memory of this machine is unknown (%v): give a size such as 2GiB", err)
		}
		n = int64(float64(total) * pct / 100)
	} else {
		var err error
		if n, err = bytesize.Parse(t); err != nil {
			return 0, fmt.Errorf("want %s, or a percentage such as 40%%", bytesize.Form)
		}
	}
	if n < minMemoryLimit {
		return 0, fmt.Errorf("%s is less than the least DuckDB can load in, %s", bytesize.Format(n), bytesize.Format(minMemoryLimit))
	}
	return n, nil
}

// defaultMemory is defaultMemoryLimit, or half the memory this process may
// use when that is less (and known): a small server keeps room for the
// rest of the process and the system.
func defaultMemory() int64 {
	if total, err := availableMemory(); err == nil && total > 0 {
		return max(min(defaultMemoryLimit, int64(total/2)), minMemoryLimit)
	}
	return defaultMemoryLimit
}

// availableMemory is the memory this process may use: the cgroup's limit
// (a container's) when there is one, else the machine's.
func availableMemory() (uint64, error) {
	if n, err := memlimit.FromCgroup(); err == nil && n > 0 {
		return n, nil
	}
	return memlimit.FromSystem()
}

// maxBody reads --max-body.
func maxBody(c *cli.Context) (int64, error) {
	s := c.String(flagMaxBody)
	n, err := bytesize.Parse(s)
	if err != nil || n < 1 {
		return 0, configError("ETALAKE_MAX_BODY (--max-body) %q: want %s, at least 1 byte", s, bytesize.Form)
	}
	return n, nil
}
