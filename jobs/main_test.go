package jobs_test

import (
	"os"
	"testing"

	"github.com/etalake/etalake/load/loadtest"
)

// TestMain removes the empty warehouse the tests copy (loadtest.Fresh).
func TestMain(m *testing.M) { os.Exit(loadtest.Main(m)) }
