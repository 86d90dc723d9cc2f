package sim

import (
	"net/http"
	"strings"
)

// simRealm is the realm of the simulator's Bearer challenges.
const simRealm = "etalake-sim"

// credential is the key a request carries where the service wants it
// (Config.Auth): the API_KEY header (spec §5), "Authorization: Bearer
// KEY" (RFC 6750 §2.1), or a header of the configured name; "" when
// there is none. challenge is the WWW-Authenticate of a 401 in the bearer
// scheme (RFC 6750 §3).
func (s *Service) credential(h http.Header) (key, challenge string) {
	if !s.auth.Bearer() {
		return h.Get(s.auth.Header()), ""
	}
	challenge = `Bearer realm="` + simRealm + `"`
	if token, ok := bearerToken(h.Get("Authorization")); ok && token != "" {
		// RFC 6750 §3.1: a token that is not accepted.
		return token, challenge + `, error="invalid_token"`
	}
	return "", challenge
}

// refusal is the message of a 401 to a request whose key, where it is
// wanted, is missing or unknown: how the service wants the key, and
// where a known key came instead, if one did. The caller holds s.mu.
func (s *Service) refusal(h http.Header, key string) string {
	if where := s.strayKey(h); where != "" {
		return "missing API key: send it " + s.wants() + ", not " + where
	}
	if key == "" {
		return "missing API key: send it " + s.wants()
	}
	return "invalid API key"
}

// wants says how the service wants the key.
func (s *Service) wants() string {
	if s.auth.Bearer() {
		return "as Authorization: Bearer <key>"
	}
	return "in the " + s.auth.Header() + " header"
}

// bearerToken reads credentials of the Bearer scheme: RFC 9110 §11.1,
// "It uses a case-insensitive token to identify the authentication
// scheme", followed by one or more spaces and the token (RFC 6750 §2.1).
func bearerToken(v string) (string, bool) {
	scheme, token, ok := strings.Cut(v, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	return strings.TrimLeft(token, " "), true
}

// strayKey names where a known key came in a request that lacks it where
// it is wanted ("in the API_KEY header", "as Authorization: Bearer"), ""
// when nowhere. It never says the key. The caller holds s.mu.
func (s *Service) strayKey(h http.Header) string {
	for name, vs := range h {
		for _, v := range vs {
			if _, ok := s.accounts[v]; ok {
				if strings.EqualFold(name, "API_KEY") {
					name = "API_KEY" // the spec's spelling, not Go's canonical Api_key
				}
				return "in the " + name + " header"
			}
			if token, ok := bearerToken(v); ok && s.accounts[token] != nil {
				return "as " + name + ": Bearer"
			}
		}
	}
	return ""
}
