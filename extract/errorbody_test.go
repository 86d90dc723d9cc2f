package extract_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/etalake/etalake/extract"
	"github.com/etalake/etalake/response"
	"github.com/etalake/etalake/wire"
)

// An error sent with status 200 is not an answer: the product stops after
// the first, as after a web page where JSON is wanted, the provider's
// words are quoted (the key redacted), and the answer lands broken, so
// that the next job asks the date again. service.md §7: "Every error
// response has the same body" (errorCode, message, details, time), sent
// with 400, 401, 403, 404, 429 or 500, never 200.
func TestAnErrorSentWith200StopsTheProductAndIsNotAnAnswer(t *testing.T) {
	const key = "pager-secret-key"
	cases := []struct{ name, body, said string }{
		{"a gateway's message", `{"message":"Unauthorized"}`, `"Unauthorized"`},
		{"a status error", `{"status":"error","error":{"code":"E42","message":"upstream down for key pager-secret-key"}}`, `"upstream down for key [REDACTED]"`},
		{"the spec's error body", `{"errorCode":401,"message":"authentication failed","details":[],"time":"2026-01-05T03:00:00Z"}`, `"401: authentication failed"`},
		{"a list of errors", `{"errors":[{"message":"quota reached"}]}`, `"quota reached"`},
		{"a long message", `{"message":"` + strings.Repeat("x", 500) + `"}`, strings.Repeat("x", 200) + `…"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := &wrongHost{status: http.StatusOK, contentType: "application/json", body: tc.body}
			c, raws := pagedClient(t, h, extract.Unlimited, func(cfg *extract.Config) { cfg.ScheduleAPI = wire.ScheduleAPIService; cfg.Paths = wire.Paths{} })
			errs := askPorts(c, 5, raws)
			if n := h.asked.Load(); n != 1 {
				t.Errorf("%d of 5 schedules asked, want 1: the first error stops the product", n)
			}
			for _, err := range errs {
				var me *extract.MisconfigError
				if !errors.As(err, &me) || me.Status != http.StatusOK {
					t.Fatalf("err = %v, want a MisconfigError of the 200", err)
				}
				if !strings.Contains(err.Error(), tc.said) {
					t.Errorf("the error does not quote what the provider said (%s): %v", tc.said, err)
				}
				if strings.Contains(err.Error(), key) {
					t.Errorf("the key is in the error: %v", err)
				}
			}
			if len(*raws) != 1 {
				t.Fatalf("%d responses landed, want the one asked", len(*raws))
			}
			got := (*raws)[0]
			if got.Broken == "" || !strings.Contains(got.Broken, tc.said) || strings.Contains(got.Broken, key) {
				t.Errorf("landed Broken %q: want the answer landed as no answer, quoting the provider without the key", got.Broken)
			}
		})
	}
}

// What has the shape of an answer is an answer, whatever else it says:
// a DCSA answer is an array, the service's schedules and periods have
// their documented members.
func TestAnAnswerWithAMessageIsNotTakenForAnError(t *testing.T) {
	cases := []struct {
		name, body string
		api        wire.ScheduleAPI
	}{
		{"a DCSA array", `[{"location":{"UNLocationCode":"NLRTM"},"vesselSchedules":[]}]`, wire.ScheduleAPIDCSA},
		{"an empty DCSA array", `[]`, wire.ScheduleAPIDCSA},
		{"a service schedule with a message", `{"location":{"locode":"NLRTM"},"vesselSchedules":[],"message":"ok","status":"error"}`, wire.ScheduleAPIService},
		{"an object without error members", `{"note":"nothing today"}`, wire.ScheduleAPIService},
		{"an envelope that succeeded, empty", `{"status":"success","message":"no sailings","data":null}`, wire.ScheduleAPIService},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := &wrongHost{status: http.StatusOK, contentType: "application/json", body: tc.body}
			c, raws := pagedClient(t, h, extract.Unlimited, func(cfg *extract.Config) { cfg.ScheduleAPI = tc.api; cfg.Paths = wire.Paths{} })
			err := keep(raws, c.PortSchedule(t.Context(), "NLRTM"))
			if err != nil {
				t.Fatalf("err = %v, want the answer taken", err)
			}
			if len(*raws) != 1 || (*raws)[0].Broken != "" {
				t.Errorf("landed %+v: want one whole answer", *raws)
			}
		})
	}
}

// The balance read, free, shows it before anything paid is asked.
func TestAnErrorSentWith200ToTheBalanceReadAsksNoSchedule(t *testing.T) {
	h := &wrongHost{status: http.StatusOK, contentType: "application/json", body: `{"message":"Unauthorized"}`}
	c, _ := pagedClient(t, h, extract.Unlimited, func(cfg *extract.Config) { cfg.ScheduleAPI = wire.ScheduleAPIService; cfg.Paths = wire.Paths{} })
	if err := keep(new([]*response.Received), c.CurrentPeriod(t.Context(), wire.ProductSchedule)); !errors.Is(err, extract.ErrMisconfigured) {
		t.Fatalf("balance: err = %v, want ErrMisconfigured", err)
	}
	if err := keep(new([]*response.Received), c.PortSchedule(t.Context(), "NLRTM")); !errors.Is(err, extract.ErrMisconfigured) {
		t.Fatalf("port schedule: err = %v, want ErrMisconfigured", err)
	}
	if n := h.asked.Load(); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}
