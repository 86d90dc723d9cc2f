package extract

import "strings"

// quotaWords are what a 403 says when the credit quota is spent:
// service.md §7 gives one status for two causes, "usage limit (credit
// quota) reached, or key without access to the product", and only the
// message tells them apart.
var quotaWords = []string{"quota", "usage limit", "limit reached", "limit exceeded", "credits", "no credit"}

// quotaReached reports whether a 403 says the quota is spent: in its
// error body's message, or anywhere in the first bytes of another body (a
// gateway's). A paid
// call's 403 stops the product whatever it says (the spent quota is the
// likelier cause, and each further ask would be refused the same); a
// free call's (the balance read) only when it says so, since a key
// without access to consumption may still have schedules to buy.
func quotaReached(e *APIError, body []byte) bool {
	msg := strings.ToLower(e.Message + " " + shorten(string(body), 2048))
	for _, w := range quotaWords {
		if strings.Contains(msg, w) {
			return true
		}
	}
	return false
}
