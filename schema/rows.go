package schema

import "github.com/apache/arrow-go/v18/arrow"

// Rows is a batch of rows of one table: what the transform derives
// (transform.Batch.Records) and the loader merges (load.Warehouse.Load),
// the hand-off between the two. Rec's schema is Table.Arrow(). Whoever
// holds it releases Rec: the loader does not.
type Rows struct {
	Table *Table
	Rec   arrow.RecordBatch
}
