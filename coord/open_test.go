package coord_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/etalake/etalake/coord"
	"github.com/etalake/etalake/extract"
	"github.com/etalake/etalake/internal/pgtest"
)

// A database that does not exist, or a user the server does not know, is
// a wrong setting (ErrSetup), found when the coordinator is opened: it is
// not a coordinator lost, which is what a job that had one reports.
func TestOpeningAMissingDatabaseIsASetupError(t *testing.T) {
	pg := pgtest.Start(t)
	for _, url := range []string{
		strings.Replace(pg.URL, "/postgres?", "/etalake_nowhere?", 1),
		strings.Replace(pg.URL, "etalake@", "stranger@", 1),
	} {
		_, err := coord.Open(t.Context(), coord.Config{URL: url})
		if !errors.Is(err, coord.ErrSetup) || errors.Is(err, extract.ErrCoordinatorLost) || strings.Contains(err.Error(), "lost") {
			t.Errorf("%s: %v; want ErrSetup, not a coordinator lost", url, err)
		}
	}
}

// A server out of reach when opened may come back: ErrUnreachable, not a
// setup error, and not lost either.
func TestOpeningAServerOutOfReachIsNotASetupError(t *testing.T) {
	_, err := coord.Open(t.Context(), coord.Config{URL: "postgres://etalake@127.0.0.1:1/x?sslmode=disable&connect_timeout=2"})
	if !errors.Is(err, coord.ErrUnreachable) || errors.Is(err, coord.ErrSetup) || errors.Is(err, extract.ErrCoordinatorLost) {
		t.Errorf("%v; want ErrUnreachable", err)
	}
}
