package setting_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/etalake/etalake/internal/setting"
)

// One rule, worded with the fields' own names or with the names a caller
// gives them: the command line says its variables and flags, a library
// user the fields.
func TestAnErrorIsWordedByItsCaller(t *testing.T) {
	flags := func(field string) string {
		return map[string]string{"PageSize": "--page-size", "ScheduleAPI": "--schedule-api"}[field]
	}
	for _, tc := range []struct {
		err         *setting.Error
		plain, said string
	}{
		{setting.Refuse("PageSize", -1, "1 to 10000"), "PageSize -1: want 1 to 10000", "--page-size -1: want 1 to 10000"},
		{setting.Refuse("PageSize", 5, "0 unless {ScheduleAPI} is dcsa-cs-1.0"), "PageSize 5: want 0 unless ScheduleAPI is dcsa-cs-1.0",
			"--page-size 5: want 0 unless --schedule-api is dcsa-cs-1.0"},
		{setting.Wrong("PageSize", "near=0: want 1 to 60 nights"), "PageSize: near=0: want 1 to 60 nights", "--page-size: near=0: want 1 to 60 nights"},
		{setting.Wrong("ScheduleAPI", "neither {ScheduleAPI} nor {PageSize} is set"), "neither ScheduleAPI nor PageSize is set",
			"neither --schedule-api nor --page-size is set"},
	} {
		if got := tc.err.Error(); got != tc.plain {
			t.Errorf("Error() = %q, want %q", got, tc.plain)
		}
		if got := tc.err.Say(flags); got != tc.said {
			t.Errorf("Say = %q, want %q", got, tc.said)
		}
	}
}

func TestRangesAndPaths(t *testing.T) {
	if setting.Int("N", 1, 1, 3) != nil || setting.Int("N", 3, 1, 3) != nil {
		t.Error("the ends of a range are refused")
	}
	if err := setting.Int("N", 4, 1, 3); err == nil || err.Error() != "N 4: want 1 to 3" {
		t.Errorf("Int 4 of 1..3: %v", err)
	}
	if err := setting.Duration("Timeout", 10*time.Millisecond, time.Second, time.Hour, "1s to 1h"); err == nil || err.Error() != "Timeout 10ms: want 1s to 1h" {
		t.Errorf("Duration: %v", err)
	}
	inner := setting.Refuse("Every", 0, "at least {Within}")
	var e *setting.Error
	if err := setting.Within("Refresh", fmt.Errorf("policy: %w", inner)); !errors.As(err, &e) || e.Field != "Refresh.Every" || !strings.Contains(e.Want, "{Refresh.Within}") {
		t.Errorf("Within: %#v", e)
	}
	if inner.Field != "Every" {
		t.Errorf("Within changed the error it was given: %s", inner.Field)
	}
	plain := errors.New("not a setting")
	if setting.Within("Refresh", plain) != plain || setting.Within("Refresh", nil) != nil {
		t.Error("Within changed an error that is not a setting's")
	}
	if err := setting.First(nil, setting.Int("A", 0, 1, 2), setting.Int("B", 0, 1, 2)); !errors.As(err, &e) || e.Field != "A" {
		t.Errorf("First: %v, want A's", err)
	}
}
