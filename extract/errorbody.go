package extract

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/etalake/etalake/wire"
)

// An error sent with status 200. Some gateways and providers answer a
// refused key, a spent quota or a fault of their own with 200 and an
// error in the body ({"message":"Unauthorized"}, {"status":"error",…}, the
// service's own error body). Taken for an answer it would be landed as
// the date's schedule and never asked again; each worker would buy one.
// It is judged as a web page where JSON is wanted is (misconfigured):
// landed as broken, so the next job asks again, and the product stopped
// after its first such answer, the provider's words quoted.
//
// Only a body that has none of the members of any answer the client asks
// for, and that looks like an error, is one: a DCSA answer is an array,
// the service's schedules, shipments and periods have their documented
// members, and none of them is taken for an error.

// answerMembers are the members, folded (lower case, no "_" or "-"), of
// which any one, not null, makes a top-level object an answer: the
// schedules of both profiles (a DCSA item sent bare included), the
// shipment response and its envelopes, a consumption period, a list of
// periods or items under a member.
var answerMembers = map[string]bool{
	"vesselschedules": true, "location": true, "routes": true, "placeofreceipt": true, "placeofdelivery": true,
	"transportcalls": true, "vessel": true, "legs": true, "carrierservicecode": true, "carrierservicename": true,
	"route": true, "containers": true, "data": true, "containerdetails": true, "metadata": true,
	"creditsinitial": true, "credits": true, "periodstart": true, "periodend": true, "expired": true,
	"periods": true, "items": true, "results": true,
}

// errorMessageLen bounds the provider's words quoted in an error.
const errorMessageLen = 200

// errorInAnswer tells whether body, a whole 2xx JSON body, is an error
// rather than an answer, and what the provider said in it.
func errorInAnswer(body []byte) (said string, ok bool) {
	body = bytes.TrimSpace(body)
	if len(body) == 0 || body[0] != '{' {
		return "", false
	}
	var members map[string]json.RawMessage
	if json.Unmarshal(body, &members) != nil {
		return "", false
	}
	for name, raw := range members {
		if isNull(raw) {
			continue
		}
		folded := strings.NewReplacer("_", "", "-", "").Replace(strings.ToLower(name))
		if answerMembers[folded] {
			return "", false
		}
		if raw[0] == '[' && folded != "errors" && folded != "details" {
			return "", false // a list under a member of its own: the periods' shape is not shown (service.md §4)
		}
	}
	if msg, ok := wire.DCSAErrorMessage(body); ok {
		return msg, true
	}
	var e wire.ErrorBody
	if wire.IsErrorBody(body) && json.Unmarshal(body, &e) == nil {
		return fmt.Sprintf("%d: %s", e.ErrorCode, e.Message), true
	}
	var status string
	_ = json.Unmarshal(members["status"], &status)
	var success bool
	_ = json.Unmarshal(members["success"], &success)
	if success || status != "" && !strings.EqualFold(strings.TrimSpace(status), "error") {
		// An envelope that says it succeeded ("status":"success",
		// "success":true) with nothing in it: an empty answer, not an
		// error.
		return "", false
	}
	errorish := !isNull(members["message"]) || !isNull(members["error"]) || !isNull(members["errors"]) ||
		strings.EqualFold(strings.TrimSpace(status), "error")
	if !errorish {
		return "", false
	}
	for _, name := range []string{"message", "error", "errors", "detail", "description"} {
		if s := textOf(members[name]); s != "" {
			return s, true
		}
	}
	return string(body), true
}

// textOf is what a member says: a string, the message of an object, the
// first of a list; else its JSON text.
func textOf(raw json.RawMessage) string {
	if isNull(raw) {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return strings.TrimSpace(s)
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) == nil {
		for _, name := range []string{"message", "description", "detail", "code"} {
			if s := textOf(obj[name]); s != "" {
				return s
			}
		}
	}
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) == nil && len(list) > 0 {
		return textOf(list[0])
	}
	return string(raw)
}

func isNull(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || string(raw) == "null"
}

// quoteSaid is the provider's words for an error message: the key
// redacted, cut to errorMessageLen bytes, quoted.
func (c *Client) quoteSaid(said string) string {
	return strconv.Quote(shorten(c.cfg.Key.RedactString(said), errorMessageLen))
}

// errorIn2xx is the misconfiguration an error sent with a success status
// shows (see above); nil when resp is not one.
func (c *Client) errorIn2xx(r *request, resp *rawResponse) *MisconfigError {
	if !resp.OK() || resp.said == "" {
		return nil
	}
	e := &MisconfigError{Product: r.product, URL: c.cfg.Key.RedactString(r.url.Scheme + "://" + r.url.Host + resp.Request), Status: resp.Status,
		Got: "an error saying " + c.quoteSaid(resp.said),
		Why: "the product answers an error with an error status, so this is another server or a gateway, or the key is refused"}
	if r.product == wire.ProductSchedule {
		e.Profile = c.cfg.ScheduleAPI
	}
	return e
}
