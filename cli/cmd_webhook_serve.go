package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/etalake/etalake/internal/bytesize"
	"github.com/etalake/etalake/internal/setting"
	"github.com/etalake/etalake/jobs"
	"github.com/etalake/etalake/webhook"
)

// Flags of webhook serve.
const (
	flagWebhookAddr   = "addr"
	flagSecretFile    = "secret-file"
	flagTolerance     = "tolerance"
	flagRotateEvery   = "rotate-every"
	flagWebhookMaxLen = "max-body"
	flagIDRetention   = "id-retention"
)

// maxRotateEvery bounds --rotate-every: how long a body may wait in the
// receiver's open journal before a writer can land it.
const maxRotateEvery = time.Hour

// webhookShutdown bounds how long a stopping receiver waits for the
// deliveries it is landing.
const webhookShutdown = 30 * time.Second

// webhookServeCommand serves the vendor's webhooks into the warehouse.
func webhookServeCommand() *cli.Command {
	return &cli.Command{
		Name:  "serve",
		Usage: "receive the tracking vendor's webhooks and land them in the warehouse, at no credit",
		Description: "Receives the vendor's webhook POSTs — a container discharged at its port of discharge, a POD\n" +
			"date moved by more than 24 h — signed as Standard Webhooks (Svix) sign them: webhook-id,\n" +
			"webhook-timestamp and webhook-signature, an HMAC-SHA256 under the endpoint's whsec_ secret.\n" +
			"A body signed with the secret, within --tolerance of this machine's clock, its webhook-id new,\n" +
			"is synced to the warehouse's landing journal and answered 204; the next job (any writer) lands\n" +
			"it and derives it as a fetch of the shipment, at no credit. It never takes the warehouse's\n" +
			"writer lock: the nightly job runs while it serves. It answers 405 to another method, 415 to\n" +
			"another content type, 413 to a body over --max-body, 400 to missing or malformed headers or a\n" +
			"timestamp out of the tolerance, 403 to a signature that is not the secret's, 409 to a message\n" +
			"received before (the same id and timestamp), 200 to a retry of one landed before (the same id,\n" +
			"a new timestamp: not landed again), 422 to a body that is no shipment's tracking, and 503 when\n" +
			"it cannot land (the vendor retries). Each refusal is logged; the secret never is.\n\n" +
			"The webhook-id is the idempotency key: the ids taken are kept on disk, in the warehouse's\n" +
			"working directory, for --id-retention (72h; the vendor retries for about 28 h), so that a\n" +
			"retry after a restart of the receiver or past the tolerance lands nothing again.\n\n" +
			"It listens on plain HTTP: put it behind the TLS proxy the vendor reaches. SIGTERM stops it\n" +
			"after the deliveries being landed, and hands its journal to the next writer.",
		Flags: append([]cli.Flag{
			warehouseFlag(),
			&cli.StringFlag{Category: catWebhooks, Name: flagWebhookAddr, EnvVars: []string{"ETALAKE_WEBHOOK_ADDR"}, Value: "127.0.0.1:8090",
				Usage: "listen address (loopback by default, behind a TLS proxy; port 0 picks a free one, printed on the first line)"},
			&cli.StringFlag{Category: catWebhooks, Name: flagSecretFile, EnvVars: []string{"ETALAKE_WEBHOOK_SECRET_FILE"},
				Usage: "a file holding the endpoint's signing secret, whsec_ and base64 as the vendor's portal shows it (required; never logged)"},
			&cli.DurationFlag{Category: catWebhooks, Name: flagTolerance, EnvVars: []string{"ETALAKE_WEBHOOK_TOLERANCE"}, Value: webhook.DefaultTolerance,
				Usage: "how far from this machine's clock a webhook-timestamp may be, 1s to 1h (the standard's libraries: 5m)"},
			&cli.StringFlag{Category: catWebhooks, Name: flagWebhookMaxLen, EnvVars: []string{"ETALAKE_WEBHOOK_MAX_BODY"}, Value: bytesize.Format(webhook.DefaultMaxBody),
				Usage: "the largest body taken (1KiB to 64MiB); a larger one is refused 413"},
			&cli.DurationFlag{Category: catWebhooks, Name: flagIDRetention, EnvVars: []string{"ETALAKE_WEBHOOK_ID_RETENTION"}, Value: webhook.DefaultRetention,
				Usage: "how long the webhook-ids taken are kept, so that the vendor's retries land nothing again, 1h to 2160h (it retries for about 28h)"},
			&cli.DurationFlag{Category: catWebhooks, Name: flagRotateEvery, EnvVars: []string{"ETALAKE_WEBHOOK_ROTATE_EVERY"}, Value: time.Minute,
				Usage: "hand the journal being written to the next job this often, 1s to 1h: a body waits at most about that long before a job can land it"},
		}, logFlags()...),
		OnUsageError: usageError,
		Action:       webhookServe,
	}
}

// webhookServe receives the vendor's webhooks into the warehouse's
// landing journal until stopped: its settings read and validated, the
// journal opened, the receiver listening, then served (serveWebhooks).
func webhookServe(c *cli.Context) error {
	log, err := newLogger(c)
	if err != nil {
		return err
	}
	cfg, rotate, err := webhookConfig(c)
	if err != nil {
		return err
	}
	retention := c.Duration(flagIDRetention)
	if err := webhook.CheckRetention(retention); err != nil {
		return settingError(c, err)
	}
	dir := c.String(flagWarehouse)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return configError("%s %s: not a directory; the receiver lands into the warehouse the jobs write (create it first, as a job does)", settingName(c, flagWarehouse), dir)
	}
	landing, err := jobs.OpenPushLanding(dir, jobs.PushOptions{Log: log, Retention: retention})
	if err != nil {
		return err
	}
	cfg.Log, cfg.Ledger = log, landing.Ledger()
	rcv, err := webhook.New(cfg, landing.Deliver)
	if err != nil {
		return errors.Join(configError("%v", err), landing.Close())
	}
	ln, err := net.Listen("tcp", c.String(flagWebhookAddr))
	if err != nil {
		return errors.Join(configError("%s: %v", settingName(c, flagWebhookAddr), err), landing.Close())
	}
	url := "http://" + ln.Addr().String() + "/"
	if jsonLog(c) {
		events(c).LogAttrs(c.Context, slog.LevelInfo, "webhook: serving", slog.String("url", url), slog.String("warehouse", dir),
			slog.String("run_id", landing.RunID()), slog.String("tolerance", cfg.Tolerance.String()),
			slog.String("id_retention", retention.String()))
	} else {
		fmt.Fprintf(c.App.Writer, "receiving webhooks at %s into %s\n", url, dir)
	}
	return serveWebhooks(c.Context, log, rcv, ln, landing, rotate)
}

// webhookConfig reads the receiver's settings — the secret, the
// tolerance, the largest body — and how often the journal is handed on,
// and validates them (webhook.Config.Validate): a setting out of range
// is refused before anything is opened.
func webhookConfig(c *cli.Context) (webhook.Config, time.Duration, error) {
	cfg := webhook.DefaultConfig()
	path := c.String(flagSecretFile)
	if path == "" {
		return cfg, 0, configError("no signing secret: set %s FILE (whsec_… as the vendor's portal shows it)", settingName(c, flagSecretFile))
	}
	var err error
	if cfg.Secret, err = webhook.ReadSecretFile(path); err != nil {
		return cfg, 0, configError("%s: %v", settingName(c, flagSecretFile), err)
	}
	cfg.Tolerance = c.Duration(flagTolerance)
	if cfg.MaxBody, err = bytesize.Parse(c.String(flagWebhookMaxLen)); err != nil {
		return cfg, 0, configError("%s %v", settingName(c, flagWebhookMaxLen), err)
	}
	if err := cfg.Validate(); err != nil {
		return cfg, 0, settingError(c, err)
	}
	rotate := c.Duration(flagRotateEvery)
	if err := setting.Duration("RotateEvery", rotate, time.Second, maxRotateEvery, "1s to 1h, such as 1m"); err != nil {
		return cfg, 0, settingError(c, err)
	}
	return cfg, rotate, nil
}

// serveWebhooks serves the receiver on ln, handing the journal on every
// rotate, until ctx ends: then it finishes the deliveries being landed
// (at most webhookShutdown), closes the journal for the next writer and
// logs what it received.
func serveWebhooks(ctx context.Context, log *slog.Logger, rcv *webhook.Receiver, ln net.Listener, landing *jobs.PushLanding, rotate time.Duration) error {
	srv := &http.Server{Handler: rcv, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		WriteTimeout: 30 * time.Second, IdleTimeout: 2 * time.Minute, MaxHeaderBytes: 64 << 10}
	rotating, stop := context.WithCancel(ctx)
	defer stop()
	rotated := make(chan error, 1)
	go func() { rotated <- landing.RotateEvery(rotating, rotate) }()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	var err error
	select {
	case err = <-served:
	case <-ctx.Done():
		log.Info("webhook: stopping: finishing the deliveries being landed")
		rcv.Close()
		shutdown, cancel := context.WithTimeout(context.Background(), webhookShutdown)
		err = srv.Shutdown(shutdown)
		cancel()
		if serr := <-served; !errors.Is(serr, http.ErrServerClosed) {
			err = errors.Join(err, serr)
		}
	}
	stop()
	err = errors.Join(err, <-rotated, landing.Close())
	st := rcv.Stats()
	log.LogAttrs(context.Background(), slog.LevelInfo, "webhook: stopped", slog.Int64("landed", st.Landed),
		slog.Int64("retries_landed_before", st.Duplicates), refusedAttr(st.Refused))
	return err
}

// refusedAttr is the count of refusals by HTTP status as a group of
// attributes, refused.403=2 ({"refused":{"403":2}} in JSON), statuses in
// order: a reader's query, not a Go map's text.
func refusedAttr(refused map[int]int64) slog.Attr {
	statuses := make([]int, 0, len(refused))
	for s := range refused {
		statuses = append(statuses, s)
	}
	slices.Sort(statuses)
	attrs := make([]any, 0, len(statuses))
	for _, s := range statuses {
		attrs = append(attrs, slog.Int64(strconv.Itoa(s), refused[s]))
	}
	return slog.Group("refused", attrs...)
}
