package sim_test

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
)

// openAPI is the OpenAPI of DCSA Commercial Schedules 1.0.3
// (testdata/dcsa), read as plain JSON, with a checker of the subset of
// JSON Schema it uses: $ref, oneOf, type, required, properties,
// additionalProperties: false, items, minItems, maxItems, enum, pattern,
// minLength, maxLength, format (date, date-time), minimum, maximum. It is
// written from the standard's rules, independently of the simulator's
// producer code and of the client's decoders.
type openAPI struct {
	doc map[string]any
	mu  sync.Mutex
	res map[string]*regexp.Regexp
}

var (
	specOnce sync.Once
	spec     *openAPI
	specErr  error
)

func loadOpenAPI(t testing.TB) *openAPI {
	t.Helper()
	specOnce.Do(func() {
		b, err := os.ReadFile("testdata/dcsa/CS_v1.0.3.json")
		if err != nil {
			specErr = err
			return
		}
		spec = &openAPI{res: map[string]*regexp.Regexp{}}
		specErr = json.Unmarshal(b, &spec.doc)
	})
	if specErr != nil {
		t.Fatal(specErr)
	}
	return spec
}

// at follows a path of member names from the document root.
func (o *openAPI) at(names ...string) map[string]any {
	var cur any = o.doc
	for _, n := range names {
		m, _ := cur.(map[string]any)
		cur = m[n]
	}
	m, _ := cur.(map[string]any)
	return m
}

// resolve follows a local $ref.
func (o *openAPI) resolve(s map[string]any) map[string]any {
	for {
		ref, ok := s["$ref"].(string)
		if !ok {
			return s
		}
		s = o.at(strings.Split(strings.TrimPrefix(ref, "#/"), "/")...)
	}
}

// schema is a component schema by name.
func (o *openAPI) schema(name string) map[string]any { return o.at("components", "schemas", name) }

// responseSchema is the JSON schema of an operation's answer with that
// status; statuses the standard does not list answer ErrorResponse.
func (o *openAPI) responseSchema(path string, status int) map[string]any {
	r := o.at("paths", path, "get", "responses", strconv.Itoa(status), "content", "application/json")
	if s, ok := r["schema"].(map[string]any); ok {
		return s
	}
	return o.schema("ErrorResponse")
}

// param is one query parameter of an operation.
type param struct {
	name     string
	required bool
	schema   map[string]any
}

// params are the query parameters of GET path.
func (o *openAPI) params(path string) []param {
	var out []param
	list, _ := o.at("paths", path, "get")["parameters"].([]any)
	for _, p := range list {
		m := o.resolve(p.(map[string]any))
		if m["in"] != "query" {
			continue
		}
		req, _ := m["required"].(bool)
		out = append(out, param{name: m["name"].(string), required: req, schema: o.resolve(m["schema"].(map[string]any))})
	}
	return out
}

func (o *openAPI) re(pattern string) *regexp.Regexp {
	o.mu.Lock()
	defer o.mu.Unlock()
	re, ok := o.res[pattern]
	if !ok {
		re = regexp.MustCompile(pattern)
		o.res[pattern] = re
	}
	return re
}

// check returns what in v breaks schema s, each problem with its JSON
// path. strict also refuses members the schema does not declare: the
// standard allows them, but a member the simulator sends and the standard
// does not name is a typo of ours.
func (o *openAPI) check(path string, v any, s map[string]any, strict bool) []string {
	s = o.resolve(s)
	if alts, ok := s["oneOf"].([]any); ok {
		var matched int
		var why []string
		for i, a := range alts {
			p := o.check(path, v, a.(map[string]any), strict)
			if len(p) == 0 {
				matched++
			} else {
				why = append(why, fmt.Sprintf("alternative %d: %s", i, p[0]))
			}
		}
		if matched != 1 {
			return []string{fmt.Sprintf("%s: matches %d of the oneOf alternatives, want 1 (%s)", path, matched, strings.Join(why, "; "))}
		}
		return nil
	}
	typ, _ := s["type"].(string)
	if typ == "" && s["properties"] != nil {
		typ = "object"
	}
	var out []string
	bad := func(format string, args ...any) { out = append(out, path+": "+fmt.Sprintf(format, args...)) }
	switch typ {
	case "object":
		m, ok := v.(map[string]any)
		if !ok {
			bad("%T, want an object", v)
			return out
		}
		req, _ := s["required"].([]any)
		for _, r := range req {
			if _, ok := m[r.(string)]; !ok {
				bad("required member %s missing", r)
			}
		}
		props, _ := s["properties"].(map[string]any)
		closed := s["additionalProperties"] == false
		names := make([]string, 0, len(m))
		for k := range m {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			ps, ok := props[k].(map[string]any)
			if !ok {
				if closed || strict {
					bad("member %s is not in the standard", k)
				}
				continue
			}
			out = append(out, o.check(path+"."+k, m[k], ps, strict)...)
		}
	case "array":
		a, ok := v.([]any)
		if !ok {
			bad("%T, want an array", v)
			return out
		}
		if n, ok := s["minItems"].(float64); ok && float64(len(a)) < n {
			bad("%d items, want at least %v", len(a), n)
		}
		if n, ok := s["maxItems"].(float64); ok && float64(len(a)) > n {
			bad("%d items, want at most %v", len(a), n)
		}
		if items, ok := s["items"].(map[string]any); ok {
			for i, x := range a {
				out = append(out, o.check(fmt.Sprintf("%s[%d]", path, i), x, items, strict)...)
			}
		}
	case "string":
		str, ok := v.(string)
		if !ok {
			bad("%T, want a string", v)
			return out
		}
		out = append(out, o.checkString(path, str, s)...)
	case "integer", "number":
		f, ok := v.(float64)
		if !ok {
			bad("%T, want a number", v)
			return out
		}
		if typ == "integer" && f != math.Trunc(f) {
			bad("%v, want an integer", f)
		}
		if n, ok := s["minimum"].(float64); ok && f < n {
			bad("%v below the minimum %v", f, n)
		}
		if n, ok := s["maximum"].(float64); ok && f > n {
			bad("%v above the maximum %v", f, n)
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			bad("%T, want a boolean", v)
		}
	}
	return out
}

// checkString checks a string value, or a query parameter's value, against
// enum, pattern, length and format.
func (o *openAPI) checkString(path, str string, s map[string]any) []string {
	var out []string
	bad := func(format string, args ...any) { out = append(out, path+": "+fmt.Sprintf(format, args...)) }
	if enum, ok := s["enum"].([]any); ok {
		found := false
		for _, e := range enum {
			found = found || e == str
		}
		if !found {
			bad("%q not in the enum %v", str, enum)
		}
	}
	if p, ok := s["pattern"].(string); ok && !o.re(p).MatchString(str) {
		bad("%q does not match %s", str, p)
	}
	n := utf8.RuneCountInString(str)
	if m, ok := s["maxLength"].(float64); ok && float64(n) > m {
		bad("%q longer than %v", str, m)
	}
	if m, ok := s["minLength"].(float64); ok && float64(n) < m {
		bad("%q shorter than %v", str, m)
	}
	switch s["format"] {
	case "date-time":
		if _, err := time.Parse(time.RFC3339, str); err != nil {
			bad("%q is not an RFC 3339 date-time", str)
		}
	case "date":
		if _, err := time.Parse(time.DateOnly, str); err != nil || len(str) != len(time.DateOnly) {
			bad("%q is not an RFC 3339 full-date", str)
		}
	}
	return out
}

func TestOpenAPICheckerCatchesWhatTheStandardForbids(t *testing.T) {
	o := loadOpenAPI(t)
	good := `{"servicePartners":[{"carrierServiceName":"Lion","carrierServiceCode":"LN","carrierImportVoyageNumber":"1W","carrierExportVoyageNumber":"1W"}],"isDummyVessel":false,"timestamps":[{"eventTypeCode":"ARRI","eventClassifierCode":"PLN","eventDateTime":"2026-01-05T00:00:00Z"}]}`
	cases := map[string]string{
		"required member servicePartners missing": `{"isDummyVessel":false,"timestamps":[{"eventTypeCode":"ARRI","eventClassifierCode":"PLN","eventDateTime":"2026-01-05T00:00:00Z"}]}`,
		"want at least 1":                         strings.Replace(good, `"timestamps":[{"eventTypeCode":"ARRI","eventClassifierCode":"PLN","eventDateTime":"2026-01-05T00:00:00Z"}]`, `"timestamps":[]`, 1),
		"not in the enum":                         strings.Replace(good, `"PLN"`, `"PLANNED"`, 1),
		"not an RFC 3339":                         strings.Replace(good, `2026-01-05T00:00:00Z`, `2026-01-05 00:00`, 1),
		"want a boolean":                          strings.Replace(good, `false`, `"no"`, 1),
		"not in the standard":                     strings.Replace(good, `"isDummyVessel"`, `"carrierCode":"MAEU","isDummyVessel"`, 1),
		"does not match":                          strings.Replace(good, `"Lion"`, `" Lion"`, 1),
	}
	var v any
	if err := json.Unmarshal([]byte(good), &v); err != nil {
		t.Fatal(err)
	}
	if p := o.check("$", v, o.schema("Schedule"), true); len(p) != 0 {
		t.Fatalf("a conforming Schedule refused: %v", p)
	}
	for want, body := range cases {
		var v any
		if err := json.Unmarshal([]byte(body), &v); err != nil {
			t.Fatal(err)
		}
		p := o.check("$", v, o.schema("Schedule"), true)
		if len(p) == 0 || !strings.Contains(strings.Join(p, "\n"), want) {
			t.Errorf("%s: got %v", want, p)
		}
	}
	// oneOf: a transport is exactly one of vessel, barge, other.
	var leg any
	_ = json.Unmarshal([]byte(`{"modeOfTransport":"TRUCK","vessel":{}}`), &leg)
	if p := o.check("$", leg, o.schema("Leg")["properties"].(map[string]any)["transport"].(map[string]any), false); len(p) == 0 {
		t.Error("a TRUCK transport with a vessel matched one alternative")
	}
}
