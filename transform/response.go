package transform

import (
	"net/url"
	"strings"

	"github.com/etalake/etalake/response"
	"github.com/etalake/etalake/wire"
)

// Result is what one Add produced.
type Result struct {
	// Rows counts the rows the response yielded per table name, after the
	// response's own duplicates were collapsed (a location named ten times
	// counts once). Dead letters are counted in DeadLetters only.
	Rows map[string]int
	// DeadLetters counts the dead_letters rows of the response.
	DeadLetters int
	// Skipped is set for a non-2xx response: nothing is derived from it.
	Skipped bool
}

// query returns the query parameters of a request (path and query),
// unescaped, with bytes that are not UTF-8 replaced by U+FFFD; a request
// that does not parse has none.
func query(request string) url.Values {
	_, raw, ok := strings.Cut(request, "?")
	if !ok {
		return nil
	}
	q, _ := url.ParseQuery(raw)
	for _, vs := range q {
		for i, v := range vs {
			vs[i] = validUTF8(v)
		}
	}
	return q
}

// pathVars matches the path of a request to endpoint e against e's
// default template (after the product's base path) and returns the
// placeholders' values, unescaped; nil when the path does not fit.
func pathVars(e wire.Endpoint, request string) map[string]string {
	path, _, _ := strings.Cut(request, "?")
	for _, base := range []string{wire.ScheduleBasePath, wire.TrackingBasePath} {
		if rest, ok := strings.CutPrefix(path, base); ok {
			path = rest
			break
		}
	}
	tmpl := strings.Split(wire.DefaultPaths().Template(e), "/")
	segs := strings.Split(path, "/")
	if len(tmpl) != len(segs) || len(tmpl) < 2 {
		return nil
	}
	vars := map[string]string{}
	for i, t := range tmpl {
		if name, ok := strings.CutPrefix(t, "{"); ok && strings.HasSuffix(name, "}") {
			v, err := url.PathUnescape(segs[i])
			if err != nil || v == "" {
				return nil
			}
			vars[strings.TrimSuffix(name, "}")] = validUTF8(v)
			continue
		}
		if t != segs[i] {
			return nil
		}
	}
	return vars
}

// dcsaQueryNames are the query parameters of the dcsa-cs-1.0 profile's
// requests that carry what the service profile's paths carry.
var dcsaQueryNames = map[string]string{
	"port": "UNLocationCode",
	"imo":  "vesselIMONumber",
	"pol":  "placeOfReceipt",
	"pod":  "placeOfDelivery",
}

// requestVar is a value the request of r names: a placeholder of the
// default path template, else the DCSA query parameter that carries it;
// "" when neither does.
func requestVar(r *response.Landed, name string) string {
	if v := pathVars(r.Endpoint, r.Request)[name]; v != "" {
		return v
	}
	if q, ok := dcsaQueryNames[name]; ok {
		return query(r.Request).Get(q)
	}
	return ""
}
