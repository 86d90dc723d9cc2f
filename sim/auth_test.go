package sim_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/etalake/etalake/sim"
	"github.com/etalake/etalake/sim/simtest"
	"github.com/etalake/etalake/wire"
)

// ask sends a GET with the given headers.
func ask(t *testing.T, env *simtest.Env, path string, h map[string]string) answer {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, env.Server.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range h {
		req.Header[k] = []string{v} // as spelled: API_KEY stays API_KEY
	}
	resp, err := env.Server.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return answer{resp.StatusCode, resp.Header, b}
}

// The simulator wants the key where it was told (Config.Auth): there it
// answers; missing, unknown or anywhere else it refuses 401, free, in the
// error body of the path's profile (the service's, or a DCSA
// ErrorResponse under /cs), saying how it wants the key and where it came
// instead, and never echoing it.
func TestTheServiceWantsTheKeyWhereItIsTold(t *testing.T) {
	o := loadOpenAPI(t)
	const key = "good-key-2718"
	places := map[string]map[string]string{
		"API_KEY":            {"API_KEY": key},
		"bearer":             {"Authorization": "Bearer " + key},
		"X-API-Key":          {"X-API-Key": key},
		"bare Authorization": {"Authorization": key},
		"Basic":              {"Authorization": "Basic Z29vZC1rZXktMjcxOA=="},
		"nowhere":            {},
	}
	for _, tc := range []struct {
		auth, at, how string
		strays        map[string]string // the message's ending for each place that is not where it is wanted
	}{
		{"api-key", "API_KEY", "in the API_KEY header", map[string]string{"bearer": ", not as Authorization: Bearer", "X-API-Key": ", not in the X-Api-Key header", "bare Authorization": ", not in the Authorization header"}},
		{"bearer", "bearer", "as Authorization: Bearer <key>", map[string]string{"API_KEY": ", not in the API_KEY header", "X-API-Key": ", not in the X-Api-Key header", "bare Authorization": ", not in the Authorization header"}},
		{"header:X-API-Key", "X-API-Key", "in the X-API-Key header", map[string]string{"API_KEY": ", not in the API_KEY header", "bearer": ", not as Authorization: Bearer", "bare Authorization": ", not in the Authorization header"}},
		{"header:Authorization", "bare Authorization", "in the Authorization header", map[string]string{"API_KEY": ", not in the API_KEY header", "bearer": ", not as Authorization: Bearer", "X-API-Key": ", not in the X-Api-Key header"}},
	} {
		for _, dcsa := range []bool{false, true} {
			auth, err := sim.ParseAuth(tc.auth)
			if err != nil {
				t.Fatal(err)
			}
			opt := simtest.Options{Keys: []sim.KeySpec{{Key: key, Schedule: simtest.Credits(10), Tracking: simtest.Credits(10)}}, Auth: auth}
			path := sim.SchedulePrefix + "/schedule/NLRTM"
			if dcsa {
				opt.ScheduleAPI = sim.ScheduleAPIDCSA
				path = sim.DCSAPrefix + portsOp + "?UNLocationCode=NLRTM&date=2026-01-05"
			}
			env := simtest.Start(t, opt)
			for place, h := range places {
				a := ask(t, env, path, h)
				if place == tc.at {
					if a.status != http.StatusOK {
						t.Errorf("%s, dcsa %v, key %s: %d %.300s", tc.auth, dcsa, place, a.status, a.body)
					}
					continue
				}
				msg := ""
				if dcsa {
					op, _, _ := strings.Cut(strings.TrimPrefix(path, sim.DCSAPrefix), "?")
					v := checkDCSA(t, o, op, path, a)
					msg = v.(map[string]any)["statusCodeMessage"].(string)
				} else {
					checkErrorBody(t, a)
					var body wire.ErrorBody
					_ = json.Unmarshal(a.body, &body)
					msg = body.Message
				}
				want := "missing API key: send it " + tc.how + tc.strays[place]
				if place == "Basic" {
					want = "missing API key: send it " + tc.how
					if tc.at == "bare Authorization" {
						want = "invalid API key"
					}
				}
				if a.status != http.StatusUnauthorized || msg != want {
					t.Errorf("%s, dcsa %v, key %s: %d %q, want 401 %q", tc.auth, dcsa, place, a.status, msg, want)
				}
				if strings.Contains(string(a.body), key) {
					t.Errorf("%s, key %s: the 401 echoes the key: %s", tc.auth, place, a.body)
				}
			}
			// A wrong key where it is wanted is an invalid key.
			wrong := map[string]string{}
			for k, v := range places[tc.at] {
				wrong[k] = strings.Replace(v, key, "other-key", 1)
			}
			if a := ask(t, env, sim.TrackingPrefix+"/consumption/current-period", wrong); a.status != 401 || !strings.Contains(string(a.body), `"invalid API key"`) {
				t.Errorf("%s: a wrong key: %d %s", tc.auth, a.status, a.body)
			}
			st := env.Service.Stats()
			if st.Charged[string(wire.ProductSchedule)] != 1 {
				t.Errorf("%s: %v charged, want only the one answer", tc.auth, st.Charged)
			}
		}
	}
}

// RFC 6750 §3: a 401 of the bearer scheme carries WWW-Authenticate: Bearer,
// with error="invalid_token" when a token was sent and refused; the scheme
// is case-insensitive (RFC 9110 §11.1: "It uses a case-insensitive token
// to identify the authentication scheme").
func TestTheServiceChallengesBearer(t *testing.T) {
	bearer, _ := sim.ParseAuth("bearer")
	env := simtest.Start(t, simtest.Options{Auth: bearer})
	path := sim.TrackingPrefix + "/consumption/current-period"
	for value, want := range map[string]string{
		"":             `Bearer realm="etalake-sim"`,
		"Basic dGVzdA": `Bearer realm="etalake-sim"`,
		"Bearer nope":  `Bearer realm="etalake-sim", error="invalid_token"`,
	} {
		h := map[string]string{}
		if value != "" {
			h["Authorization"] = value
		}
		if a := ask(t, env, path, h); a.status != 401 || a.header.Get("WWW-Authenticate") != want {
			t.Errorf("Authorization %q: %d, WWW-Authenticate %q; want 401 with %q", value, a.status, a.header.Get("WWW-Authenticate"), want)
		}
	}
	if a := ask(t, env, path, map[string]string{"Authorization": "bEaReR  test"}); a.status != 200 {
		t.Errorf("bEaReR with two spaces: %d, want 200", a.status)
	}
	plain := simtest.Start(t, simtest.Options{})
	if a := ask(t, plain, path, nil); a.status != 401 || a.header.Get("WWW-Authenticate") != "" {
		t.Errorf("API_KEY scheme: %d, WWW-Authenticate %q: no challenge defined", a.status, a.header.Get("WWW-Authenticate"))
	}
}

// `sim serve --auth` is read by the simulator's own ParseAuth: each
// setting it refuses is named with what was expected.
func TestParseAuthSaysWhatItWants(t *testing.T) {
	for in, want := range map[string]string{"": "api-key", " Bearer ": "bearer", "header: X-API-Key ": "header:X-API-Key", "API-KEY": "api-key"} {
		if a, err := sim.ParseAuth(in); err != nil || a.String() != want {
			t.Errorf("ParseAuth(%q) = %s, %v; want %s", in, a, err, want)
		}
	}
	for in, mention := range map[string]string{
		"basic":             "want api-key (the API_KEY header, the default), bearer",
		"header":            "name the header",
		"header: ":          "name the header",
		"header:X API":      `" " is not allowed in a header name`,
		"header:Schlüssel":  `"ü" is not allowed in a header name`,
		"header:Host":       "the HTTP client sets it itself",
		"header:keep-alive": "connection-specific",
		"bearer:x":          "unknown authentication",
	} {
		if a, err := sim.ParseAuth(in); err == nil || !strings.Contains(err.Error(), mention) {
			t.Errorf("ParseAuth(%q) = %s, %v; want an error mentioning %q", in, a, err, mention)
		}
	}
}
