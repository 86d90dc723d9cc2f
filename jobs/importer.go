package jobs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/etalake/etalake/extract"
	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/response"
	"github.com/etalake/etalake/transform"
	"github.com/etalake/etalake/wire"
)

// ImportOptions configure an import of archived responses.
type ImportOptions struct {
	// ObservedAt is when the responses were true; zero: each file's
	// modification time.
	ObservedAt time.Time
	// Endpoint and Request, when set, name what every body answers instead
	// of inferring it from the body (Request: path and query as the client
	// sends it with the default paths).
	Endpoint wire.Endpoint
	Request  string
	// MaxBody is the largest body derived; a larger one is landed and
	// dead-lettered (0: DefaultMaxBody).
	MaxBody int64
	// ExitCodes are the caller's exit codes of each verdict, recorded in
	// etl_runs.exit_code (nil: none).
	ExitCodes ExitCodes
	Version   string
	Log       *slog.Logger
	Now       func() time.Time
}

// ImportStats says what an import did. Bodies = Landed + AlreadyThere +
// Unreadable; Outcome.DeadLetters counts the dead_letters rows, of whole
// bodies (Outcome.Quarantined, Unidentified among them) or of records in
// them.
type ImportStats struct {
	Outcome
	Files  int
	Bodies int
	// Landed are new in the raw landing; AlreadyThere were landed before
	// (by a fetch or an earlier import) and change nothing.
	Landed, AlreadyThere int
	// Unidentified were landed though no shape identifies them (as
	// endpoint "unidentified"), and dead-lettered with the reason.
	Unidentified int
}

// importBatch is how many bodies are landed per transaction.
const importBatch = 512

// importProgressEvery is how many bodies an import logs its progress after.
const importProgressEvery = 10_000

// Import lands archived API responses like fetched ones and derives them,
// then publishes them as every writer does (end.go): the analytic tables
// refreshed, the Parquet mirror written, the database copied. paths
// are files or directories (walked for *.json, *.ndjson, *.jsonl); a .json
// file holds one response, an .ndjson or .jsonl file one per line, read a
// line at a time. Which request a body answers is inferred from its shape
// (transform.Identify) unless opt names it. Every body read is landed: one
// no shape identifies as endpoint "unidentified", under its file and line,
// and dead-lettered with the reason, which makes the import partial, as
// any dead letter does. A body larger than --max-body (a file, or a
// line) is landed from a file, never held whole, and dead-lettered
// undecoded (importbig.go). An import that stops keeps every load it
// committed; importing again lands only what is new.
func Import(ctx context.Context, wh *load.Warehouse, paths []string, opt ImportOptions) (ImportStats, error) {
	if opt.MaxBody == 0 {
		opt.MaxBody = DefaultMaxBody
	}
	if err := opt.Validate(); err != nil {
		return ImportStats{}, fmt.Errorf("import: %w", err)
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.Log == nil {
		opt.Log = slog.New(slog.DiscardHandler)
	}
	fixed, err := opt.identity()
	if err != nil {
		return ImportStats{}, err
	}
	files, err := importFiles(paths)
	if err != nil {
		return ImportStats{}, err
	}
	args := map[string]any{"paths": paths, "observed_at": dateTimeOrNil(opt.ObservedAt), "endpoint": string(opt.Endpoint)}
	run := &load.Run{ID: newRunID(opt.Now()), Job: "import", StartedAt: opt.Now(), Status: load.StatusRunning, Version: opt.Version, Args: args}
	if err := begin(ctx, wh, run, opt.Now()); err != nil {
		return ImportStats{}, err
	}
	im := &importer{wh: wh, sink: newSink(wh, opt.MaxBody, opt.Now, opt.Log), opt: opt, fixed: fixed, run: run}
	defer im.sink.batch.Release()
	if c, cerr := im.sink.catchUp(ctx); cerr != nil {
		return ImportStats{}, fmt.Errorf("deriving responses landed earlier but never loaded: %w", cerr)
	} else {
		c.log(opt.Log, "import")
	}
	im.stats.Files = len(files)
	for _, f := range files {
		if err = im.file(ctx, f); err != nil {
			break
		}
	}
	if err == nil {
		err = im.flush(ctx)
	}
	if err == nil {
		err = im.sink.flush(ctx)
	}
	st := &im.stats
	st.AlreadyThere = st.Bodies - st.Landed
	st.Outcome, err = endJob(ctx, wh, run, im.sink, err, nil, opt.ExitCodes)
	return *st, err
}

// identity is the identity the options name for every body, or nil when
// each body's is inferred: Endpoint and Request both or neither, an
// endpoint etalake knows, a request naming a resource.
func (opt ImportOptions) identity() (*transform.Identity, error) {
	if opt.Endpoint == "" && opt.Request == "" {
		return nil, nil
	}
	id, err := fixedIdentity(opt.Endpoint, opt.Request)
	if err != nil {
		return nil, err
	}
	return &id, nil
}

type importer struct {
	wh      *load.Warehouse
	sink    *sink
	opt     ImportOptions
	fixed   *transform.Identity
	run     *load.Run
	pending []*response.Landed
	spilled []string // files of lines larger than --max-body, removed once landed
	stats   ImportStats
}

// file imports one file: one body, or one per line.
func (im *importer) file(ctx context.Context, path string) error {
	fh, err := os.Open(path)
	if err != nil {
		return err
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return err
	}
	observed := im.opt.ObservedAt
	if observed.IsZero() {
		observed = st.ModTime()
	}
	switch {
	case linesFile(path):
		return im.lines(ctx, path, fh, observed)
	case st.Size() > im.sink.maxBody:
		return im.bigBody(ctx, path, path, observed)
	}
	body, err := io.ReadAll(fh)
	if err != nil {
		return err
	}
	// RFC 8259 §8.1: a parser "MAY ignore the presence of a byte order
	// mark rather than treating it as an error"; an editor on Windows
	// saves one. It is dropped, as from a fetched body.
	return im.body(ctx, path, extract.TrimBOM(body), observed)
}

// linesFile says whether a file holds one body per line (by its name).
func linesFile(path string) bool {
	ext := strings.ToLower(filepath.Ext(path))
	return ext == ".ndjson" || ext == ".jsonl"
}

// body places one body and queues it for landing.
func (im *importer) body(ctx context.Context, where string, body []byte, observed time.Time) error {
	im.stats.Bodies++
	if im.stats.Bodies%importProgressEvery == 0 {
		im.opt.Log.Info("import: progress", "bodies", im.stats.Bodies, "at", where)
	}
	r := im.imported(observed)
	r.Body = body
	id := im.fixed
	if id == nil {
		got, err := transform.Identify(body)
		if err != nil {
			// Kept as it came, where it came from, and dead-lettered
			// with why (the transform says it again on a replay): an
			// import loses nothing it could read.
			im.stats.Unidentified++
			im.opt.Log.Warn("import: body not identified: landed and dead-lettered", "where", where, "error", err)
			r.Product, r.Endpoint = wire.ProductUnknown, wire.EndpointUnidentified
			r.Resource, r.Request = "import:"+where, "import:"+where
			return im.queue(ctx, r)
		}
		id = &got
	}
	r.Product, r.Endpoint, r.Request = id.Product, id.Endpoint, id.Request
	if res, err := resourceOfRequest(id.Endpoint, id.Request); err == nil {
		r.Resource = res.String()
	} else {
		// What the server answered is derived whatever its identifiers
		// look like (an odd shipment number, a sealine that is no SCAC);
		// only no job will ask for it by that resource.
		im.opt.Log.Warn("import: body names no resource a job could ask for: landed under its place", "where", where, "error", err)
		r.Resource = "import:" + where
	}
	return im.queue(ctx, r)
}

// imported is a body of the import, observed at observed, as it lands
// before its identity is known: a 200 of the first attempt.
func (im *importer) imported(observed time.Time) *response.Landed {
	return &response.Landed{Received: response.Received{Status: 200, FetchedAt: im.opt.Now(), Attempt: 1},
		RunID: im.run.ID, Source: response.SourceImport, ObservedAt: observed.UTC()}
}

// queue queues r for landing, and lands the queue when it is full.
func (im *importer) queue(ctx context.Context, r *response.Landed) error {
	im.pending = append(im.pending, r)
	if len(im.pending) >= importBatch {
		return im.flush(ctx)
	}
	return nil
}

// flush lands the queued bodies, then derives them.
func (im *importer) flush(ctx context.Context) error {
	if len(im.pending) == 0 {
		return nil
	}
	n, err := im.wh.Land(ctx, im.pending...)
	if err != nil {
		return err
	}
	im.stats.Landed += n
	for _, r := range im.pending {
		if err := im.sink.derive(ctx, r); err != nil {
			return err
		}
	}
	clear(im.pending) // the bodies are landed and derived: let them go
	im.pending = im.pending[:0]
	im.removeSpilled()
	return nil
}

// fixedIdentity is the identity named by flags.
func fixedIdentity(e wire.Endpoint, request string) (transform.Identity, error) {
	p := wire.ProductSchedule
	switch e {
	case wire.EndpointShipment:
		p = wire.ProductTracking
	case wire.EndpointPortSchedule, wire.EndpointP2PSchedule, wire.EndpointVesselSchedule, wire.EndpointCurrentPeriod, wire.EndpointPeriods:
	default:
		return transform.Identity{}, fmt.Errorf("--endpoint %q: want one of schedule_port, schedule_p2p, schedule_vessel, shipment, consumption_current_period, consumption_periods", e)
	}
	if request == "" {
		return transform.Identity{}, fmt.Errorf("--endpoint needs --request: the path and query the body answers, e.g. %s/schedule/NLRTM", wire.ScheduleBasePath)
	}
	if strings.HasPrefix(request, wire.TrackingBasePath) {
		p = wire.ProductTracking
	}
	if _, err := resourceOfRequest(e, request); err != nil {
		return transform.Identity{}, fmt.Errorf("--request: %w", err)
	}
	return transform.Identity{Product: p, Endpoint: e, Request: request}, nil
}

// ErrNothingToImport: the paths of an import name no file to import (none
// given, or directories without a *.json, *.ndjson or *.jsonl file).
var ErrNothingToImport = errors.New("nothing to import")

// CheckImportPaths checks, before anything is opened, that every path of
// an import exists and that each directory holds a file Import reads: an
// error matching ErrNothingToImport names a path that holds none. It
// stops at the first file found in each directory.
func CheckImportPaths(paths []string) error {
	_, err := expandImport(paths, true)
	return err
}

// importFiles expands paths into the files to import, in a stable order.
func importFiles(paths []string) ([]string, error) {
	return expandImport(paths, false)
}

// expandImport expands paths into the files to import; with first, it
// stops at the first file of each directory.
func expandImport(paths []string, first bool) ([]string, error) {
	if len(paths) == 0 {
		return nil, fmt.Errorf("%w: give files or directories of JSON responses", ErrNothingToImport)
	}
	var out []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			// A file named outright is held to what a directory's walk
			// takes: one Import would skip there is refused here, before
			// a warehouse is created for it or its body dead-lettered.
			if !importable(p) {
				return nil, fmt.Errorf("%w: %s is not a *.json, *.ndjson or *.jsonl file of JSON responses", ErrNothingToImport, p)
			}
			out = append(out, p)
			continue
		}
		var found []string
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if importable(path) && !d.IsDir() {
				found = append(found, path)
				if first {
					return fs.SkipAll
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("%w: %s holds no *.json, *.ndjson or *.jsonl file", ErrNothingToImport, p)
		}
		sort.Strings(found)
		out = append(out, found...)
	}
	return out, nil
}

// importable says whether Import reads a file of this name: a .json
// file (one response) or an .ndjson or .jsonl file (one per line).
func importable(path string) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".json", ".ndjson", ".jsonl":
		return true
	}
	return false
}

func dateTimeOrNil(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UTC().Format(time.RFC3339)
}
