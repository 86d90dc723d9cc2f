package coord

import (
	"context"
	"errors"
	"fmt"
	"net"

	"github.com/jackc/pgx/v5/pgconn"
)

// ErrSetup: Open found the coordination database unusable as set — it
// does not exist, the user is refused, or the host's name does not
// resolve. Asking again will not change that: the setting is wrong.
var ErrSetup = errors.New("the coordination database cannot be used as set")

// ErrUnreachable: Open could not reach the coordination database for a
// reason that may pass (refused or timed-out connections). Unlike
// extract.ErrCoordinatorLost, nothing was asked yet.
var ErrUnreachable = errors.New("the coordination database could not be reached")

// unopened words a failure of Open's first exchange: ErrSetup when the
// setting is wrong, else ErrUnreachable; ctx's error when ctx ended.
// Never extract.ErrCoordinatorLost: a coordinator that was never had is
// not lost, and a job that loses one mid-run ends otherwise.
func (c *Coordinator) unopened(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if wrongSetting(err) {
		return fmt.Errorf("coordinator at %s: %v: %w", c.host, err, ErrSetup)
	}
	return fmt.Errorf("coordinator at %s: %v: %w", c.host, err, ErrUnreachable)
}

// wrongSetting tells whether err, from the first exchange, says the
// setting is wrong. The SQLSTATE classes are Postgres's (Appendix A,
// "PostgreSQL Error Codes"): 3D000 invalid_catalog_name ("database …
// does not exist"), class 28 invalid authorization specification (a
// role refused or unknown, a password wrong), 42501
// insufficient_privilege (no right to create or use the tables).
func wrongSetting(err error) bool {
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		return pg.Code == "3D000" || pg.Code == "42501" || (len(pg.Code) == 5 && pg.Code[:2] == "28")
	}
	var dns *net.DNSError
	return errors.As(err, &dns) && dns.IsNotFound
}
