package load_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/etalake/etalake/internal/setting"
	"github.com/etalake/etalake/load"
)

// What an operator may set is refused by one rule each, naming the
// field; Open takes less memory than that (a test holds DuckDB to it),
// but not less than DuckDB can merge in.
func TestOptionsRules(t *testing.T) {
	for _, tc := range []struct {
		change       func(*load.Options)
		field, words string
	}{
		{func(o *load.Options) { o.MemoryLimit = 32 << 20 }, "MemoryLimit", "MemoryLimit 32MiB: want at least 64MiB"},
		{func(o *load.Options) { o.LockTimeout = -time.Second }, "LockTimeout", "LockTimeout -1s: want 0 (do not wait) to 24h"},
		{func(o *load.Options) { o.LockTimeout = 72 * time.Hour }, "LockTimeout", "LockTimeout 72h0m0s"},
		{func(o *load.Options) { o.Threads = 0 }, "Threads", "Threads 0"},
	} {
		opt := load.DefaultOptions()
		tc.change(&opt)
		err := opt.Validate()
		var se *setting.Error
		if !errors.As(err, &se) || se.Field != tc.field || !strings.Contains(err.Error(), tc.words) {
			t.Errorf("%v, want a setting error of %s saying %q", err, tc.field, tc.words)
		}
	}
	if err := load.DefaultOptions().Validate(); err != nil {
		t.Errorf("the defaults: %v", err)
	}
	_, err := load.Open(t.Context(), t.TempDir(), load.Options{MemoryLimit: 8 << 20})
	var se *setting.Error
	if !errors.As(err, &se) || se.Field != "MemoryLimit" || !strings.Contains(err.Error(), "at least 16MiB") {
		t.Errorf("Open with 8 MiB: %v, want it refused", err)
	}
}
