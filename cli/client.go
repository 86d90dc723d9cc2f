package cli

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/etalake/etalake/coord"
	"github.com/etalake/etalake/extract"
	"github.com/etalake/etalake/jobs"
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
	flagInsecure    = "allow-insecure-http"
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
	return append([]cli.Flag{
		&cli.StringFlag{Category: catService, Name: flagScheduleURL, EnvVars: []string{envScheduleURL}, Usage: "base URL of the schedule product: ending in /schedule/api/v1 (schedule API service), or the API root the standard's /v1/… paths hang under (dcsa-cs-1.0); unset in a tracking-only setup, where a job that asks a schedule stops before any request (exit 2)"},
		&cli.StringFlag{Category: catService, Name: flagScheduleAPI, EnvVars: []string{envScheduleAPI}, Value: string(wire.ScheduleAPIService), Usage: "the schedule product's contract: service (docs/spec/schedules.md) or dcsa-cs-1.0 (DCSA Commercial Schedules 1.0: JSON arrays, Next-Page-Cursor pages, no balance endpoint: the cap is --max-credits)"},
		&cli.IntFlag{Category: catService, Name: flagPageSize, EnvVars: []string{"ETALAKE_PAGE_SIZE"}, Usage: "ask schedule answers in pages of at most N items, 1 to 10000 (the limit parameter; 0: the provider's default); every page is a request and a credit"},
		&cli.IntFlag{Category: catService, Name: flagMaxPages, EnvVars: []string{"ETALAKE_MAX_PAGES"}, Value: extract.DefaultMaxPages, Usage: "follow at most N pages of one answer, 1 to 10000: past them, or at a cursor seen twice, or at an empty page that names a next one, the resource stops (the pages landed are kept, the job ends partial, the next job resumes)"},
		&cli.IntFlag{Category: catService, Name: flagDays, EnvVars: []string{"ETALAKE_SCHEDULE_DAYS"}, Value: extract.DefaultScheduleDays, Usage: "the schedule window from the logical date, 1 to 366 days, for requests that take a range ({until} in path templates; dcsa-cs-1.0 vessel schedules and routings)"},
		&cli.StringFlag{Category: catService, Name: flagTrackingURL, EnvVars: []string{envTrackingURL}, Usage: "base URL of the tracking product, ending in /container-tracking/api/v2; unset in a schedule-only setup, where a job with shipments due stops before any request (exit 2)"},
		&cli.BoolFlag{Category: catService, Name: flagInsecure, EnvVars: []string{envInsecure}, Usage: "take a plain http:// URL to a host other than this machine (the key then crosses the network in clear); http:// to localhost, 127.0.0.0/8 or ::1 is taken without it"},
		&cli.StringFlag{Category: catService, Name: flagKeyFile, EnvVars: []string{"ETALAKE_API_KEY_FILE"}, Usage: "read the API key from this file (else from " + envAPIKey + ")"},
		authFlag(),
		&cli.StringFlag{Category: catCredits, Name: flagRate, EnvVars: []string{"ETALAKE_RATE"}, Value: "10/10s", Usage: "the service's rate limit per key, N/DURATION (N 1 to 10000, DURATION at most 24h); every etalake process on this machine using the key shares it (on every machine, with --" + coord.URLFlag + ")"},
		&cli.DurationFlag{Category: catService, Name: flagTimeout, EnvVars: []string{"ETALAKE_TIMEOUT"}, Value: extract.DefaultTimeout, Usage: "time limit of one HTTP attempt, 1s to 1h"},
		&cli.StringFlag{Category: catCredits, Name: flagStateDir, EnvVars: []string{"ETALAKE_STATE_DIR"}, Usage: "where the rate-limit state shared between processes lives (default: the user's state or cache directory)"},
		&cli.StringSliceFlag{Category: catService, Name: flagPaths, EnvVars: []string{"ETALAKE_PATHS"}, Usage: "override a path template, NAME=TEMPLATE (port, p2p, vessel, current-period, periods, shipment), relative to the product's URL and joined to it once; it may carry a query, {date} is the logical date and {until} the end of the schedule window: port=/v1/port-schedules?UNLocationCode={port}&date={date}; repeatable"},
		&cli.StringFlag{Name: flagKeyRefused, Hidden: true},
	}, coordinationFlags()...)
}

// urlSetting names the setting of product p's URL, and how the URL ends.
func urlSetting(c *cli.Context, p wire.Product) (setting, ending string) {
	if p == wire.ProductTracking {
		return settingName(c, flagTrackingURL), "/container-tracking/api/v2"
	}
	return settingName(c, flagScheduleURL), "/schedule/api/v1"
}

// noURL is the usage error of a job that needs product p, whose URL is
// not set: what needs it (need), the setting, and the remedy.
func noURL(c *cli.Context, p wire.Product, need string) error {
	setting, ending := urlSetting(c, p)
	return usageErr{fmt.Errorf("%s but %s is not set: set it to the %s product's base URL (…%s); nothing was asked", need, setting, p, ending)}
}

// urlError words a job's *jobs.MissingURLError with the setting's
// variable and flag (exit 2).
func urlError(c *cli.Context, err error) error {
	var e *jobs.MissingURLError
	if errors.As(err, &e) {
		return noURL(c, e.Product, e.Due())
	}
	return err
}

// authFlag chooses how the key is sent, for the client and the simulator.
func authFlag() cli.Flag {
	return &cli.StringFlag{Category: catService, Name: flagAuth, EnvVars: []string{envAuth}, Value: extract.AuthNameAPIKey,
		Usage: "how the provider wants the key: api-key (the API_KEY header), bearer (Authorization: Bearer KEY) or header:NAME (the key as the value of header NAME, e.g. header:X-API-Key); it goes in that header and no other"}
}

// readAuth reads --auth.
func readAuth(c *cli.Context) (extract.Auth, error) {
	a, err := extract.ParseAuth(c.String(flagAuth))
	if err != nil {
		return a, configError("%s: %v", settingName(c, flagAuth), err)
	}
	return a, nil
}

// authHint adds to a 401 how the key was sent and the setting that
// changes it: a provider that wants it otherwise answers 401 too.
func authHint(err error, a extract.Auth) error {
	if !errors.Is(err, extract.ErrUnauthorized) {
		return err
	}
	return fmt.Errorf("%w\n(the key was sent in %s; if the provider wants it otherwise, set %s or --%s: %s)", err, a.Want(), envAuth, flagAuth, extract.AuthForms)
}

// readKey reads the API key from --api-key-file or ETALAKE_API_KEY.
func readKey(c *cli.Context) (extract.Key, error) {
	remedy := "set " + envAPIKey + " or pass --" + flagKeyFile + " FILE"
	if c.IsSet(flagKeyRefused) {
		return extract.Key{}, configError("--api-key refused: a key on the command line is visible to every user of the machine (ps, shell history); %s", remedy)
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
	v, ok := os.LookupEnv(envAPIKey)
	if !ok {
		return extract.Key{}, configError("no API key: %s", remedy)
	}
	k, err := extract.NewKey(v)
	if err != nil {
		return extract.Key{}, configError("%s: %v", envAPIKey, err)
	}
	return k, nil
}

// newClient builds the service client from the shared flags: URLs, key,
// rate limiter shared across processes, paths and timeout; the caps bound
// its budgets (extract.Unlimited for none), and a body larger than
// maxDecode (0: any) is not decoded. A setting out of range is refused
// before anything is asked (extract.Config.Validate).
func newClient(c *cli.Context, log *slog.Logger, capSchedule, capTracking, maxDecode int64) (*extract.Client, error) {
	cfg := extract.DefaultConfig()
	cfg.ScheduleURL, cfg.TrackingURL = c.String(flagScheduleURL), c.String(flagTrackingURL)
	cfg.AllowInsecureHTTP = c.Bool(flagInsecure)
	cfg.PageSize, cfg.MaxPages, cfg.ScheduleDays = c.Int(flagPageSize), c.Int(flagMaxPages), c.Int(flagDays)
	cfg.Timeout = c.Duration(flagTimeout)
	cfg.MaxDecode, cfg.UserAgent = maxDecode, "etalake/"+version
	cfg.ScheduleBudget = extract.NewBudget(wire.ProductSchedule, capSchedule)
	cfg.TrackingBudget = extract.NewBudget(wire.ProductTracking, capTracking)
	if strings.TrimSpace(cfg.ScheduleURL) == "" && strings.TrimSpace(cfg.TrackingURL) == "" {
		// Before the key: a setup with no product set has nothing to send it to.
		return nil, usageErr{fmt.Errorf("%w; try `etalake sim serve` for a local simulator", settingError(c, cfg.Validate()))}
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
		return nil, configError("%s: %v", settingName(c, flagScheduleAPI), err)
	}
	cfg.Paths = cfg.ScheduleAPI.Paths()
	for _, p := range c.StringSlice(flagPaths) {
		if err := cfg.Paths.Set(p); err != nil {
			return nil, configError("--path: %v", err)
		}
	}
	if err := cfg.Validate(); err != nil {
		return nil, settingError(c, err)
	}
	cc, err := coordinationConfig(c)
	if err != nil {
		return nil, err
	}
	if cc.Enabled() {
		// The key's window and caps are the coordinator's, for every
		// process of the key: the state directory has no part.
		if err := coordinate(c, log, cc, &cfg, rate, [2]int64{capSchedule, capTracking}); err != nil {
			return nil, err
		}
		client, err := extract.NewClient(cfg)
		if err != nil {
			return nil, settingError(c, err)
		}
		log.Debug("client ready", "key", cfg.Key.Fingerprint(), "auth", cfg.Auth.String(), "rate", rate.String(), "coordination_lease", coordinationLease(cc).String())
		return client, nil
	}
	dir := c.String(flagStateDir)
	if dir == "" {
		if dir, err = extract.DefaultStateDir(); err != nil {
			return nil, configError("no state directory for the shared rate limit (%v): set %s", err, settingName(c, flagStateDir))
		}
	}
	if cfg.Limiter, err = extract.NewLimiter(extract.LimiterConfig{Rate: rate, Dir: dir, KeyID: cfg.Key.Fingerprint()}); err != nil {
		return nil, fmt.Errorf("rate limiter: %w", err)
	}
	client, err := extract.NewClient(cfg)
	if err != nil {
		return nil, settingError(c, err)
	}
	log.Debug("client ready", "key", cfg.Key.Fingerprint(), "auth", cfg.Auth.String(), "rate", rate.String(), "state_dir", dir)
	return client, nil
}

// misconfigHint adds to an error that showed a product's URL or profile
// wrong (extract.ErrMisconfigured) which settings to check; other errors
// pass unchanged.
func misconfigHint(c *cli.Context, err error) error {
	var me *extract.MisconfigError
	if !errors.As(err, &me) {
		return err
	}
	hint := fmt.Sprintf("check %s (the base ending in /container-tracking/api/v2) and any --%s shipment=… override", settingName(c, flagTrackingURL), flagPaths)
	if me.Product == wire.ProductSchedule {
		hint = fmt.Sprintf("check %s (for --%s %s the base ending in /schedule/api/v1, for %s the API root the standard's /v1/… paths hang under), "+
			"%s (now %s) and any --%s override", settingName(c, flagScheduleURL), flagScheduleAPI, wire.ScheduleAPIService, wire.ScheduleAPIDCSA,
			settingName(c, flagScheduleAPI), me.Profile, flagPaths)
	}
	if errors.Is(err, extract.ErrUntrusted) {
		name := settingName(c, flagTrackingURL)
		if me.Product == wire.ProductSchedule {
			name = settingName(c, flagScheduleURL)
		}
		hint = fmt.Sprintf("check the host and scheme of %s; if it is right, trust the CA that signed its certificate: SSL_CERT_FILE=/path/to/ca.pem (or SSL_CERT_DIR)", name)
	}
	return fmt.Errorf("%w\n  %s", err, hint)
}
