package wire

import (
	"strings"
	"testing"
)

// A template may carry a query and {date}; placeholders it does not know,
// and queries that do not parse, are refused naming what is wanted.
func TestPathTemplatesWithQueries(t *testing.T) {
	p := DefaultPaths()
	if err := p.Set("port=/v1/port-schedules?UNLocationCode={port}&date={date}"); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"port": "NL AMS", "date": "2026-01-05"}
	if got := p.Path(EndpointPortSchedule, vars); got != "/v1/port-schedules" {
		t.Errorf("path %q", got)
	}
	if got := p.Query(EndpointPortSchedule, vars).Encode(); got != "UNLocationCode=NL+AMS&date=2026-01-05" {
		t.Errorf("query %q", got)
	}
	if q := DefaultPaths().Query(EndpointPortSchedule, vars); q != nil {
		t.Errorf("a template without a query has one: %v", q)
	}
	if err := p.Set("vessel=/v1/vessel-schedules/{imo}/{date}"); err != nil {
		t.Errorf("{date} in a path: %v", err)
	}
	for setting, want := range map[string]string{
		"port=/v1/port-schedules?UNLocationCode={port}&x={locode}": "unknown placeholder {locode}; want {port} or {date}",
		"port=/v1/x?code={port}&bad=%zz":                           "its query",
		"p2p=/v1/routes?from={pol}":                                "want the placeholder {pod}",
	} {
		d := DefaultPaths()
		if err := d.Set(setting); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Set(%q): %v, want an error saying %q", setting, err, want)
		}
	}
}

// A path is joined to its base once: a path that starts with the base's
// last segments does not repeat them.
func TestJoinBaseOnce(t *testing.T) {
	for _, tc := range []struct{ base, path, want string }{
		{"/schedule/api/v1", "/schedule/NLRTM", "/schedule/api/v1/schedule/NLRTM"},
		{"/schedule/api/v1", "/v1/port-schedules", "/schedule/api/v1/port-schedules"},
		{"/schedule/api/v1/", "/schedule/api/v1/schedule/NLRTM", "/schedule/api/v1/schedule/NLRTM"},
		{"/cs", "/v1/port-schedules", "/cs/v1/port-schedules"},
		{"", "/v1/port-schedules", "/v1/port-schedules"},
		{"/api/v1", "/v10/x", "/api/v1/v10/x"},
	} {
		if got := JoinBase(tc.base, tc.path); got != tc.want {
			t.Errorf("JoinBase(%q, %q) = %q, want %q", tc.base, tc.path, got, tc.want)
		}
	}
}
