package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/etalake/etalake/extract"
	"github.com/etalake/etalake/sim"
)

// simServeCommand serves the simulated service over HTTP.
func simServeCommand() *cli.Command {
	return &cli.Command{
		Name:         "serve",
		Usage:        "serve the simulated service over HTTP",
		Description:  simServeDescription,
		Flags:        simServeFlags(),
		OnUsageError: usageError,
		Action:       simServe,
	}
}

// simServeDescription is sim serve's help: the rules served, the DCSA
// profile, the keys' headers, the controls, the jumps and the pushes.
const simServeDescription = "Serves both products of the service with all its rules: API_KEY authentication (401; or\n" +
	"as --auth says), product access and credit quota (403), input validation (400), no data (404),\n" +
	"the per-key rate limit (429), monthly credit periods, free consumption calls and failed calls.\n\n" +
	"The first line on stdout gives the base URLs, the (first) key and the virtual clock's day, ready for the shell:\n" +
	"   export ETALAKE_SCHEDULE_URL=http://127.0.0.1:8089/schedule/api/v1 ETALAKE_TRACKING_URL=… ETALAKE_API_KEY=demo ETALAKE_DATE=2026-01-05\n" +
	"ETALAKE_DATE makes etalake run ask for the simulator's day (its world starts at --start) rather than today;\n" +
	"after POST /_sim/clock?advance=24h, pass run --date the next day.\n\n" +
	"--schedule-api dcsa-cs-1.0 serves the schedule product as DCSA Commercial Schedules 1.0 under /cs\n" +
	"instead, from the same world with the same keys, rate and credits (tracking is unchanged):\n" +
	"   export ETALAKE_SCHEDULE_URL=http://127.0.0.1:8089/cs ETALAKE_TRACKING_URL=… ETALAKE_API_KEY=demo ETALAKE_SCHEDULE_API=dcsa-cs-1.0\n" +
	"   GET /cs/v1/port-schedules?UNLocationCode=NLRTM&date=2026-01-05               an item per terminal\n" +
	"   GET /cs/v1/vessel-schedules?vesselIMONumber=IMO[&startDate=…&endDate=…]     an item per service\n" +
	"   GET /cs/v1/point-to-point-routes?placeOfReceipt=CNSHA&placeOfDelivery=NLRTM  an item per routing\n" +
	"An answer is a JSON array cut into pages of the client's limit (default 100), or of --page-size when\n" +
	"smaller. While items remain, the Next-Page-Cursor header names the next page, asked as the standard's\n" +
	"version (--dcsa-version, sent as API-Version) says: 1.0.0 and 1.0.1 with ?cursor=<that> alone (any other\n" +
	"parameter: 400), 1.0.2 and 1.0.3 with the cursor and the first request's filters unchanged (altered\n" +
	"filters: 400). Each page costs 1 schedule credit; no data is 200 [], errors are DCSA ErrorResponses,\n" +
	"and free. /schedule/api/v1 then answers a web server's 404, and the schedule product has no\n" +
	"consumption endpoints. IMO numbers: etalake sim world --list vessels.\n\n" +
	"--auth bearer wants the key as Authorization: Bearer KEY, --auth header:X-API-Key as the value of\n" +
	"X-API-Key, as carriers' APIs do (DCSA defines no scheme); the export line then sets ETALAKE_AUTH too.\n" +
	"A request without the key there is refused 401 with a message saying how it is wanted.\n\n" +
	"Controls (no key needed): GET /_sim/clock, POST /_sim/clock?advance=24h, GET /_sim/truth,\n" +
	"GET /_sim/eta?shipmentNumber=…[&shipmentType=…][&at=RFC3339] (the carrier's POD ETA then, free),\n" +
	"GET /_sim/ledger, GET /_sim/stats.\n\n" +
	"Carriers' ETAs drift and, unless --jumps off, jump: a box rolled to the next sailing (its ETA a week\n" +
	"later), a port call omitted (its boxes discharged at the vessel's next port, which becomes their POD),\n" +
	"a voyage sailed by a substitute ship (another IMO in schedules and events), at each carrier's rates,\n" +
	"announced on the carrier's daily revision at least 4 days before the arrival they make. GET /_sim/truth\n" +
	"lists each: the carriers' rates, the omitted calls and swapped voyages, and per shipment its jumps —\n" +
	"when announced, the ETA either side, how far the arrival moved.\n\n" +
	"--webhook-url and --webhook-secret-file push the vendor's webhooks, signed as Standard Webhooks,\n" +
	"for every shipment asked: a container discharged at its POD, a POD date moved by more than 24 h,\n" +
	"as the virtual clock passes them; a push not answered 2xx is retried on the standard's schedule.\n\n" +
	"Without --key, the key \"demo\" is accepted with 1000 credits of each product."

// simServeFlags are sim serve's flags: the world's, the service's (keys,
// rate, clock, faults, profile, auth), the pushes' and the log's.
func simServeFlags() []cli.Flag {
	return append(append(worldFlags(),
		&cli.StringFlag{Category: catService, Name: "addr", Value: "127.0.0.1:8089", Usage: "listen address (loopback by default; port 0 picks a free one)"},
		&cli.StringSliceFlag{Category: catService, Name: "key", Usage: "accepted key as KEY:SCHEDULE_CREDITS:TRACKING_CREDITS[:EXPIRES]; credits \"-\" = no access to the product (403); repeatable"},
		&cli.StringFlag{Category: catService, Name: "rate", Value: "10/10s", Usage: "rate limit per key, N/DURATION"},
		&cli.Float64Flag{Category: catService, Name: "speed", Value: 1, Usage: "virtual seconds per real second (0 freezes the clock; use POST /_sim/clock?advance=…)"},
		&cli.DurationFlag{Category: catService, Name: "latency-median", Usage: "median response time (log-normal)"},
		&cli.DurationFlag{Category: catService, Name: "latency-p99", Usage: "99th percentile response time"},
		&cli.Float64Flag{Category: catService, Name: "error-rate", Usage: "share of requests answered 500/503"},
		&cli.Float64Flag{Category: catService, Name: "truncate-rate", Usage: "share of paid answers with a cut JSON body (still charged)"},
		&cli.Float64Flag{Category: catService, Name: "burst-rate", Usage: "chance per request of a burst of 429s"},
		&cli.IntFlag{Category: catService, Name: "burst-length", Value: 3, Usage: "429s per burst"},
		&cli.BoolFlag{Category: catService, Name: "retry-after", Usage: "send Retry-After with every 429"},
		&cli.StringFlag{Category: catService, Name: flagScheduleAPI, EnvVars: []string{envScheduleAPI}, Value: sim.ScheduleAPIService,
			Usage: "schedule API profile to serve: service (under /schedule/api/v1) or dcsa-cs-1.0 (DCSA Commercial Schedules 1.0 under /cs, paged)"},
		&cli.StringFlag{Category: catService, Name: "dcsa-version", Value: sim.DefaultDCSAVersion,
			Usage: "dcsa-cs-1.0: the version followed (" + strings.Join(sim.DCSAVersions, ", ") + "): 1.0.0 and 1.0.1 want a next page asked with the cursor alone, 1.0.2 and 1.0.3 with the first request's filters"},
		&cli.IntFlag{Category: catService, Name: "page-size", Usage: "dcsa-cs-1.0: most items per page whatever the client's limit (0: the client's limit, default 100)"},
		&cli.StringFlag{Category: catService, Name: flagAuth, EnvVars: []string{envAuth}, Value: sim.Auth{}.String(),
			Usage: "where the simulator wants the key: api-key (the API_KEY header, as the service), bearer (Authorization: Bearer KEY) or header:NAME (the key as the value of header NAME); a request without it there is refused 401, saying how it is wanted"},
		&cli.StringFlag{Category: catWebhooks, Name: "webhook-url", Usage: "push the vendor's webhooks there (etalake webhook serve's URL): for every shipment asked, a container discharged at the POD and a POD date moved by more than 24 h, as the virtual clock passes them"},
		&cli.StringFlag{Category: catWebhooks, Name: "webhook-secret-file", Usage: "with --webhook-url: the file of the signing secret (whsec_…), the one the receiver's --secret-file holds"},
	), logFlags()...)
}

// simServe serves the simulated service on --addr until the command is
// stopped: its settings read and validated, the world built, the export
// line said, the pushes sent as the virtual clock passes them.
func simServe(c *cli.Context) error {
	wcfg, err := worldConfig(c)
	if err != nil {
		return err
	}
	cfg, err := simConfig(c, wcfg.Seed)
	if err != nil {
		return err
	}
	speed := c.Float64("speed")
	if speed < 0 {
		return configError("--speed %v: want 0 or more", speed)
	}
	cfg.World = sim.NewWorld(wcfg)
	cfg.Clock = sim.NewClock(wcfg.Start, speed, nil)
	svc, err := sim.New(cfg)
	if err != nil {
		return settingError(c, err)
	}
	pusher, err := simPusher(c, svc)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", c.String("addr"))
	if err != nil {
		return configError("--addr %s: %v", c.String("addr"), err)
	}
	if err := saySimServing(c, svc, cfg, wcfg, "http://"+ln.Addr().String()); err != nil {
		ln.Close()
		return err
	}
	srv := &http.Server{Handler: svc, ReadHeaderTimeout: 10 * time.Second}
	pushed := make(chan struct{})
	pushCtx, stopPushing := context.WithCancel(c.Context)
	defer func() { stopPushing(); <-pushed }()
	go func() {
		defer close(pushed)
		if pusher != nil {
			servePushes(pushCtx, c, pusher)
		}
	}()
	return serveUntilDone(c.Context, srv, ln)
}

// saySimServing says where the simulator serves: the export line for a
// shell on stdout (the URLs, the key, the profile and the authentication
// a client needs), what it simulates on stderr; with --log-format json, both as
// events.
func saySimServing(c *cli.Context, svc *sim.Service, cfg sim.Config, wcfg sim.WorldConfig, base string) error {
	exports := fmt.Sprintf("export %s=%s%s %s=%s%s", envScheduleURL, base, svc.ScheduleBasePath(), envTrackingURL, base, sim.TrackingPrefix)
	// The key it wants (the first --key's): a test key of the
	// simulator's, said so that the line alone sets a client up.
	exports += " " + envAPIKey + "=" + shellQuote(cfg.Keys[0].Key)
	// The virtual clock's day: run's logical date defaults to today, a
	// day the simulator's world (from --start) need not cover, and its
	// answers to a day it does not cover are "no data", a quiet 404.
	exports += " " + envDate + "=" + svc.Clock().Now().UTC().Format(time.DateOnly)
	if cfg.ScheduleAPI != sim.ScheduleAPIService {
		exports += " " + envScheduleAPI + "=" + cfg.ScheduleAPI
	}
	if cfg.Auth != (sim.Auth{}) {
		exports += " " + envAuth + "=" + shellQuote(cfg.Auth.String())
	}
	if !extract.Loopback(base) {
		// Listening on another address than loopback: the client takes
		// its plain http only when told.
		exports += " " + envInsecure + "=1"
	}
	world, speed, clock := cfg.World, c.Float64("speed"), svc.Clock().Now().Format(time.RFC3339)
	if !jsonLog(c) {
		fmt.Fprintln(c.App.Writer, exports)
		fmt.Fprintf(c.App.ErrWriter, "simulator: seed %d, %d shipments, jumps %s, %d ports, %d keys, rate %s, virtual clock at %s ×%v; controls at %s%s\n",
			wcfg.Seed, len(world.Shipments()), jumpsWord(wcfg), len(world.Ports()), len(cfg.Keys), cfg.Rate, clock, speed, base, sim.AdminPrefix)
		return nil
	}
	// The URLs as fields, and the line for a shell as one more.
	events(c).LogAttrs(c.Context, slog.LevelInfo, "sim: serving", slog.String("schedule_url", base+svc.ScheduleBasePath()),
		slog.String("tracking_url", base+sim.TrackingPrefix), slog.String("schedule_api", cfg.ScheduleAPI), slog.String("auth", cfg.Auth.String()),
		slog.String("controls", base+sim.AdminPrefix), slog.String("export", exports))
	log, err := newLogger(c)
	if err != nil {
		return err
	}
	log.Info("simulator", "seed", wcfg.Seed, "shipments", len(world.Shipments()), "jumps", jumpsWord(wcfg), "ports", len(world.Ports()), "keys", len(cfg.Keys),
		"rate", cfg.Rate.String(), "virtual_clock", clock, "speed", speed)
	return nil
}

// serveUntilDone serves srv on ln until it fails or ctx ends, then shuts
// it down, giving the requests in flight 5 s.
func serveUntilDone(ctx context.Context, srv *http.Server, ln net.Listener) error {
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(shutdown); err != nil {
			return err
		}
		if err := <-done; !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	}
}

// simConfig reads the simulated service's flags — keys, rate, profile,
// authentication, faults — and validates them (sim.Config.Validate); its
// faults are seeded with seed, the world's.
func simConfig(c *cli.Context, seed int64) (sim.Config, error) {
	rate, err := readRate(c)
	if err != nil {
		return sim.Config{}, err
	}
	cfg := sim.Config{
		Rate:        sim.Rate{N: rate.N, Window: rate.Window},
		ScheduleAPI: c.String(flagScheduleAPI),
		PageSize:    c.Int(flagPageSize),
		Faults: sim.Faults{
			LatencyMedian: c.Duration("latency-median"),
			LatencyP99:    c.Duration("latency-p99"),
			ErrorRate:     c.Float64("error-rate"),
			TruncateRate:  c.Float64("truncate-rate"),
			BurstRate:     c.Float64("burst-rate"),
			BurstLength:   c.Int("burst-length"),
			RetryAfter:    c.Bool("retry-after"),
			Seed:          seed,
		},
	}
	if cfg.ScheduleAPI == "" {
		cfg.ScheduleAPI = sim.ScheduleAPIService // an empty ETALAKE_SCHEDULE_API
	}
	if c.IsSet("dcsa-version") || cfg.ScheduleAPI == sim.ScheduleAPIDCSA {
		cfg.DCSAVersion = c.String("dcsa-version")
	}
	specs := c.StringSlice("key")
	if len(specs) == 0 {
		specs = []string{"demo:1000:1000"}
	}
	for _, s := range specs {
		k, err := sim.ParseKeySpec(s)
		if err != nil {
			return cfg, configError("--key: %v", err)
		}
		cfg.Keys = append(cfg.Keys, k)
	}
	// The simulator reads --auth with its own code, not the client's: a
	// client and a simulator must not share one wrong reading.
	if cfg.Auth, err = sim.ParseAuth(c.String(flagAuth)); err != nil {
		return cfg, configError("%s: %v", settingName(c, flagAuth), err)
	}
	return cfg, settingError(c, cfg.Validate())
}

// simPusher builds the sender of --webhook-url, or nil without it.
func simPusher(c *cli.Context, svc *sim.Service) (*sim.Pusher, error) {
	u, path := c.String("webhook-url"), c.String("webhook-secret-file")
	switch {
	case u == "" && path == "":
		return nil, nil
	case u == "" || path == "":
		return nil, configError("--webhook-url and --webhook-secret-file go together: where to push, and the secret to sign with")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, configError("--webhook-secret-file: %v", err)
	}
	key, err := sim.ParseWebhookSecret(string(b))
	if err != nil {
		return nil, configError("--webhook-secret-file %s: %v", path, err)
	}
	p, err := sim.NewPusher(svc, sim.PushConfig{URL: u, Secrets: [][]byte{key}})
	if err != nil {
		return nil, configError("--webhook-url: %v", err)
	}
	return p, nil
}

// servePushes sends the pushes due every second until ctx ends, logging
// each attempt.
func servePushes(ctx context.Context, c *cli.Context, p *sim.Pusher) {
	log, err := newLogger(c)
	if err != nil {
		return
	}
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		for _, a := range p.Flush(ctx) {
			attrs := []any{"webhook_id", a.Push.ID, "type", a.Push.Type, "shipment", a.Push.Ref.Number, "at", a.Push.At.Format(time.RFC3339), "attempt", a.N, "status", a.Status}
			switch {
			case a.Err == nil:
				log.Info("sim: pushed", attrs...)
			case a.GivenUp:
				log.Error("sim: push given up", append(attrs, "error", a.Err)...)
			default:
				log.Warn("sim: push failed, to be retried", append(attrs, "error", a.Err)...)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
