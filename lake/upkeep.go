package lake

import (
	"context"
	"fmt"
	"sort"
	"strconv"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"

	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/schema"
)

// A night adds to each partition it changes one data file of the rows it
// changed and, when it replaced rows the lake held, one position delete
// file. Left alone, a table would gain files every night and its readers
// would apply ever more deletes. So every commit ends with the upkeep of
// the writer's partitions of the table it committed (no one has to
// remember to run lake maintain), by these rules, per partition:
//
//   - Deletes: a data file whose delete files (each deletes rows of one
//     data file: deletes.go) delete upkeepDeletedShare of its rows, or
//     that has upkeepDeleteFiles of them, is rewritten, deletes applied,
//     and its delete files removed.
//   - Small files: once the partition has upkeepDataFiles data files, all
//     but the largest are rewritten as one, the largest too when the
//     others hold as many rows: files merge with files of their size, so
//     a row is rewritten about log2(nights) times over the partition's
//     life, not once a night.
//
// The files a rule picks in a partition are rewritten together, as one.
//
// A rewrite is one snapshot (iceberg-go's RewriteDataFiles), marked
// etalake.compaction; the rows it writes are counted apart from the
// night's (load.LakeStats.CompactedRows).
const (
	upkeepDataFiles    = 4
	upkeepDeleteFiles  = 4
	upkeepDeletedShare = 0.3
)

// upkeep rewrites the partitions of writer in table t that the rules
// above say need it, in one snapshot.
func (l *Lake) upkeep(ctx context.Context, t *schema.Table, writer int64, st *load.LakeStats) error {
	filter := iceberg.EqualTo(iceberg.Reference(load.LakeWriterColumn), writer)
	err := l.retry(ctx, t, func(tbl *table.Table) error {
		_, files, rows, err := compactFiles(ctx, tbl, filter, 0)
		if err != nil || files == 0 {
			return err
		}
		st.Compacted += files
		st.CompactedRows += rows
		return nil
	})
	if err != nil {
		return fmt.Errorf("lake: compacting %s: %w", t.Name, err)
	}
	return nil
}

// compactFiles rewrites, in one snapshot, the partitions of tbl holding
// rows of filter that need it: by the upkeep's rules when small is 0,
// else (lake maintain) the files smaller than small of every partition
// with two such files or more, or with deletes. It returns the partitions
// and data files rewritten, and their rows.
func compactFiles(ctx context.Context, tbl *table.Table, filter iceberg.BooleanExpression, small int64) (parts, files int, rows int64, err error) {
	if tbl.CurrentSnapshot() == nil {
		return 0, 0, 0, nil
	}
	tasks, err := tbl.Scan(table.WithRowFilter(filter)).PlanFiles(ctx)
	if err != nil {
		return 0, 0, 0, err
	}
	byPart := map[string][]table.FileScanTask{}
	var order []string
	for _, task := range tasks {
		k := partitionKey(task.File)
		if _, ok := byPart[k]; !ok {
			order = append(order, k)
		}
		byPart[k] = append(byPart[k], task)
	}
	var groups []table.CompactionTaskGroup
	for _, k := range order {
		pick := compactable(byPart[k], small)
		if len(pick) == 0 {
			continue
		}
		g := table.CompactionTaskGroup{PartitionKey: k, Tasks: pick}
		for _, task := range pick {
			g.TotalSizeBytes += task.File.FileSizeBytes()
			files++
			rows += task.File.Count()
		}
		groups = append(groups, g)
	}
	if len(groups) == 0 {
		return 0, 0, 0, nil
	}
	_, err = tbl.RewriteDataFiles(ctx, groups, table.RewriteDataFilesOptions{
		SnapshotProps: iceberg.Properties{"etalake.compaction": "true"},
	})
	if err != nil {
		return 0, 0, 0, err
	}
	return len(groups), files, rows, nil
}

// compactable picks the data files of one partition to rewrite as one
// (none when it needs no rewrite): see compactFiles.
func compactable(tasks []table.FileScanTask, small int64) []table.FileScanTask {
	if small > 0 {
		var pick []table.FileScanTask
		withDeletes := false
		for _, task := range tasks {
			if task.File.FileSizeBytes() < small || len(task.DeleteFiles) > 0 {
				pick = append(pick, task)
				withDeletes = withDeletes || len(task.DeleteFiles) > 0
			}
		}
		if len(pick) > 1 || withDeletes {
			return pick
		}
		return nil
	}
	var pick []table.FileScanTask
	picked := map[string]bool{}
	add := func(task table.FileScanTask) {
		if !picked[task.File.FilePath()] {
			picked[task.File.FilePath()] = true
			pick = append(pick, task)
		}
	}
	for _, task := range tasks {
		var deleted int64
		for _, d := range task.DeleteFiles {
			deleted += d.Count()
		}
		if len(task.DeleteFiles) >= upkeepDeleteFiles || (deleted > 0 && float64(deleted) >= upkeepDeletedShare*float64(task.File.Count())) {
			add(task)
		}
	}
	if len(tasks) >= upkeepDataFiles {
		sorted := append([]table.FileScanTask(nil), tasks...)
		sort.Slice(sorted, func(i, j int) bool { return sorted[i].File.Count() > sorted[j].File.Count() })
		var rest int64
		for _, task := range sorted[1:] {
			rest += task.File.Count()
			add(task)
		}
		if rest >= sorted[0].File.Count() {
			add(sorted[0])
		}
	}
	if len(pick) == 1 && len(pick[0].DeleteFiles) == 0 {
		return nil
	}
	return pick
}

// partitionKey names the partition (spec and values) of a data file.
func partitionKey(f iceberg.DataFile) string {
	p := f.Partition()
	ids := make([]int, 0, len(p))
	for id := range p {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	k := strconv.Itoa(int(f.SpecID()))
	for _, id := range ids {
		k += fmt.Sprintf("/%d=%v", id, p[id])
	}
	return k
}
