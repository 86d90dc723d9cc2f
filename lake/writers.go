package lake

import (
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// A writer's last run is kept where expiry cannot take it: snapshots are
// expired by lake maintain (--keep-days), and a writer that stopped
// feeding the lake would vanish from lake status while its rows stay. So
// each commit also sets two table properties of its writer, in the same
// transaction: the run id and the commit's time. Status reads the
// writers from the snapshots kept, these properties, and the data itself
// (the etalake_writer partition of every data file of the current
// snapshot), so a writer whose rows a table holds is always listed.
const (
	writerPropPrefix     = "etalake.writer."
	lastRunPropSuffix    = ".last-run"
	lastCommitPropSuffix = ".last-commit"
)

// writerProps are the table properties saying that writer committed run
// at now.
func writerProps(writer int64, run string, now time.Time) iceberg.Properties {
	w := writerPropPrefix + strconv.FormatInt(writer, 10)
	return iceberg.Properties{w + lastRunPropSuffix: run, w + lastCommitPropSuffix: now.UTC().Format(time.RFC3339Nano)}
}

// lastRuns are the last run of every writer of tbl: from its snapshots
// kept, its writers' properties, and the writers of its current data
// files (inData: a writer known from its rows alone has no run).
func lastRuns(tbl *table.Table, inData map[int64]bool) []WriterRun {
	last := map[string]WriterRun{}
	note := func(r WriterRun) {
		if cur, ok := last[r.Writer]; !ok || r.At.After(cur.At) || (cur.Run == "" && r.Run != "") {
			last[r.Writer] = r
		}
	}
	for _, s := range tbl.Metadata().Snapshots() {
		if s.Summary == nil || s.Summary.Properties[WriterProperty] == "" {
			continue
		}
		note(WriterRun{Writer: s.Summary.Properties[WriterProperty], Run: s.Summary.Properties[RunIDProperty], At: time.UnixMilli(s.TimestampMs).UTC()})
	}
	for k, run := range tbl.Properties() {
		w, ok := strings.CutPrefix(k, writerPropPrefix)
		if !ok {
			continue
		}
		if w, ok = strings.CutSuffix(w, lastRunPropSuffix); !ok {
			continue
		}
		at, _ := time.Parse(time.RFC3339Nano, tbl.Properties()[writerPropPrefix+w+lastCommitPropSuffix])
		note(WriterRun{Writer: w, Run: run, At: at.UTC()})
	}
	for w := range inData {
		if _, ok := last[strconv.FormatInt(w, 10)]; !ok {
			last[strconv.FormatInt(w, 10)] = WriterRun{Writer: strconv.FormatInt(w, 10)}
		}
	}
	out := make([]WriterRun, 0, len(last))
	for _, r := range last {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].At.Equal(out[j].At) {
			return out[i].At.After(out[j].At)
		}
		return out[i].Writer < out[j].Writer
	})
	return out
}
