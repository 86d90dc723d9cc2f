package load

import (
	"context"
	"fmt"

	"github.com/etalake/etalake/schema"
)

// LakeResend marks every partition of t pending whole: the next commit
// replaces all this warehouse's rows of t in the lake with its own. The
// lake calls it when lake mend rolled t back to an older snapshot, which
// lacks what later commits held.
func (w *Warehouse) LakeResend(ctx context.Context, t *schema.Table) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.db == nil {
		return errClosed
	}
	if !Mirrored(t) {
		return nil
	}
	if _, err := w.attachLake(ctx); err != nil {
		return err
	}
	_, err := w.db.ExecContext(ctx, fmt.Sprintf(`INSERT INTO lake_pending (table_name, partition_date, keyed)
SELECT DISTINCT %s, %s, NULL FROM %s AS r WHERE NOT EXISTS (SELECT 1 FROM lake_pending AS l WHERE l.table_name = %s AND l.partition_date = r.%s AND l.keyed IS NULL)`,
		literal(t.Name), ident(t.Partition), ident(t.Name), literal(t.Name), ident(t.Partition)))
	if err != nil {
		return fmt.Errorf("load: marking %s pending for the lake again: %w", t.Name, err)
	}
	return nil
}
