package cli

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/etalake/etalake/extract"
	"github.com/etalake/etalake/sim"
	"github.com/etalake/etalake/sim/simtest"
)

// --auth (ETALAKE_AUTH) sends the key as the provider wants it: against a
// simulator wanting each scheme, the same scheme is answered, any other is
// refused with exit 2, the simulator's word on how it wants the key and
// the setting that changes it; the key is in no output.
func TestCLIAuthSchemes(t *testing.T) {
	schemes := []string{"api-key", "bearer", "header:X-API-Key"}
	for _, want := range schemes {
		t.Run(want, func(t *testing.T) {
			auth, err := extract.ParseAuth(want)
			if err != nil {
				t.Fatal(err)
			}
			env := simtest.Start(t, simtest.Options{
				Keys: []sim.KeySpec{{Key: cliKey, Schedule: simtest.Credits(7), Tracking: simtest.Credits(5)}},
				Rate: sim.Rate{N: 1000, Window: time.Second},
				Auth: simtest.Auth(t, auth.String()),
			})
			vars := map[string]string{"ETALAKE_SCHEDULE_URL": env.ScheduleURL, "ETALAKE_TRACKING_URL": env.TrackingURL, "ETALAKE_API_KEY": cliKey, "ETALAKE_RATE": "1000/1s"}
			for _, sent := range schemes {
				for _, how := range []string{"env", "flag"} {
					env, args := map[string]string{}, []string{"credits"}
					for k, v := range vars {
						env[k] = v
					}
					if how == "env" {
						env["ETALAKE_AUTH"] = sent
					} else {
						args = append(args, "--auth", sent)
					}
					code, stdout, stderr := run(t, env, args...)
					out := stdout + stderr
					if strings.Contains(out, cliKey) {
						t.Fatalf("sent as %s: the key leaked:\n%s", sent, out)
					}
					if sent == want {
						if code != 0 || !strings.Contains(stdout, "current") {
							t.Errorf("sent as %s (%s): exit %d:\n%s", sent, how, code, out)
						}
						continue
					}
					wants := "send it in the " + auth.Header() + " header"
					if auth.Bearer() {
						wants = "send it as Authorization: Bearer <key>"
					}
					if code != 2 || !strings.Contains(out, "401") || !strings.Contains(out, wants) || !strings.Contains(out, "set ETALAKE_AUTH or --auth") {
						t.Errorf("sent as %s (%s): exit %d, want 2 saying %q and how to change it:\n%s", sent, how, code, wants, out)
					}
				}
			}
		})
	}
}

func TestCLIRefusesNonsenseAuth(t *testing.T) {
	env := simtest.Start(t, simtest.Options{})
	vars := map[string]string{"ETALAKE_SCHEDULE_URL": env.ScheduleURL, "ETALAKE_TRACKING_URL": env.TrackingURL, "ETALAKE_API_KEY": "test"}
	for auth, mention := range map[string]string{
		"basic":               "want api-key",
		"header":              "name the header",
		"header:X API":        `" " is not allowed in a header name`,
		"header:Host":         "the HTTP client sets it itself",
		"header:Schlüssel":    "is not allowed in a header name",
		"header:X-Key:Bearer": `":" is not allowed in a header name`,
	} {
		for _, args := range [][]string{{"credits", "--auth", auth}, {"sim", "serve", "--addr", "127.0.0.1:0", "--auth", auth}} {
			code, stdout, stderr := run(t, vars, args...)
			if code != 2 || !strings.Contains(stderr, "ETALAKE_AUTH (--auth)") || !strings.Contains(stderr, mention) {
				t.Errorf("%v: exit %d, want 2 naming ETALAKE_AUTH (--auth) and %q:\n%s%s", args, code, mention, stdout, stderr)
			}
		}
	}
}

// `etalake sim serve --auth …` wants the key that way, and its export line
// says so, quoted for the shell when the header's name needs it.
func TestCLISimServeWantsTheKeyAsTold(t *testing.T) {
	ask := func(url string, h map[string]string) (int, string) {
		req, err := http.NewRequest(http.MethodGet, url+"/consumption/current-period", nil)
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range h {
			req.Header[k] = []string{v}
		}
		resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body struct{ Message string }
		b, _ := io.ReadAll(resp.Body)
		_ = json.Unmarshal(b, &body)
		return resp.StatusCode, body.Message
	}
	vars := exported(serveSim(t, "--auth", "bearer"))
	if vars["ETALAKE_AUTH"] != "bearer" {
		t.Errorf("export line: %v, want ETALAKE_AUTH=bearer", vars)
	}
	url := vars["ETALAKE_TRACKING_URL"]
	if code, body := ask(url, map[string]string{"Authorization": "Bearer demo"}); code != 200 {
		t.Errorf("Bearer demo: %d %s", code, body)
	}
	if code, body := ask(url, map[string]string{"API_KEY": "demo"}); code != 401 || !strings.Contains(body, "send it as Authorization: Bearer <key>, not in the API_KEY header") {
		t.Errorf("API_KEY: %d %s", code, body)
	}

	line := serveSim(t, "--auth", "header:X-Key's")
	if !strings.HasSuffix(line, ` ETALAKE_AUTH='header:X-Key'\''s'`) {
		t.Errorf("export line %q: want the header quoted for the shell", line)
	}
	url = exported(line)["ETALAKE_TRACKING_URL"]
	if code, body := ask(url, map[string]string{"X-Key's": "demo"}); code != 200 {
		t.Errorf("X-Key's: %d %s", code, body)
	}
	if vars := exported(serveSim(t)); len(vars) != 4 || vars["ETALAKE_AUTH"] != "" {
		t.Errorf("default export line: %v, want the URLs, the key and the date alone", vars)
	}
}
