package sim

import (
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"
)

// Auth is where the service wants the key: in the API_KEY header (the zero
// value, service.md §5), as "Authorization: Bearer KEY" (RFC 6750 §2.1), or
// as the value of a header of another name, as carriers' APIs want it. It
// is the simulator's own setting, read by its own code (ParseAuth), not the
// client's (extract.Auth): the conformance tests run the client against
// the simulator, and one shared reading would agree with itself when wrong.
type Auth struct {
	bearer bool
	header string // the header's name as spelled; "" is API_KEY
}

// The words of the setting, as `sim serve --auth` takes them: the same
// words the client's --auth takes, so that one ETALAKE_AUTH serves both.
const (
	authWordAPIKey = "api-key"
	authWordBearer = "bearer"
	authWordHeader = "header"
)

// apiKeyHeader is the service's header for the key (service.md §5: "an
// API key in the header `API_KEY`").
const apiKeyHeader = "API_KEY"

// ParseAuth reads where the service wants the key: "api-key" or "" (the
// API_KEY header), "bearer", or "header:NAME" with NAME a field name (RFC
// 9110 §5.1: "Field names are case-insensitive", a token of §5.6.2) that
// is not one a client's HTTP stack writes itself. Words are
// case-insensitive; surrounding spaces are dropped.
func ParseAuth(s string) (Auth, error) {
	word, name, named := strings.Cut(strings.TrimSpace(s), ":")
	word = strings.ToLower(strings.TrimSpace(word))
	switch {
	case word == "" && !named, word == authWordAPIKey && !named:
		return Auth{}, nil
	case word == authWordBearer && !named:
		return Auth{bearer: true}, nil
	case word != authWordHeader:
		return Auth{}, fmt.Errorf("unknown authentication %q: want api-key (the API_KEY header, the default), bearer (Authorization: Bearer KEY) or header:NAME (the key as the value of header NAME)", s)
	case !named:
		return Auth{}, fmt.Errorf("authentication %q: name the header, as in header:X-API-Key", s)
	}
	name = strings.TrimSpace(name)
	if name == "" {
		return Auth{}, fmt.Errorf("authentication %q: the header's name is empty; name the header, as in header:X-API-Key", s)
	}
	if i := strings.IndexFunc(name, func(r rune) bool { return !fieldNameRune(r) }); i >= 0 {
		bad, _ := utf8.DecodeRuneInString(name[i:])
		return Auth{}, fmt.Errorf("authentication header %q: %q is not allowed in a header name (RFC 9110 §5.6.2: letters, digits and !#$%%&'*+-.^_`|~)", name, string(bad))
	}
	if why := clientWrites(name); why != "" {
		return Auth{}, fmt.Errorf("authentication header %q: no key can come in it: %s", name, why)
	}
	return Auth{header: name}, nil
}

// fieldNameRune reports whether r may stand in a field name: a tchar of
// RFC 9110 §5.6.2, "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" /
// "." / "^" / "_" / "`" / "|" / "~" / DIGIT / ALPHA.
func fieldNameRune(r rune) bool {
	return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune("!#$%&'*+-.^_`|~", r)
}

// clientWrites says why a header can carry no key, "" when it can: the
// HTTP client writes it itself from the request (Host, RFC 9110 §7.2; the
// framing of §8.6 and RFC 9112 §6.1; what it asks for and who it is), or
// it is connection-specific (RFC 9110 §7.6.1) or a proxy's (§11.7.2).
func clientWrites(name string) string {
	switch strings.ToLower(name) {
	case "host", "content-length", "transfer-encoding", "content-type", "accept", "accept-encoding", "user-agent":
		return "the HTTP client sets it itself"
	case "connection", "proxy-connection", "keep-alive", "te", "trailer", "upgrade":
		return "it is connection-specific (RFC 9110 §7.6.1), the HTTP client sets it itself"
	case "proxy-authorization":
		return "it is for a proxy (RFC 9110 §11.7.2), the HTTP client sets it itself"
	}
	return ""
}

// String is the setting as ParseAuth reads it: api-key, bearer or
// header:NAME.
func (a Auth) String() string {
	switch {
	case a.bearer:
		return authWordBearer
	case a.header != "":
		return authWordHeader + ":" + a.header
	}
	return authWordAPIKey
}

// keyHeader is the header whose value is the key (or, bearer, "Bearer
// KEY").
func (a Auth) keyHeader() string {
	switch {
	case a.bearer:
		return "Authorization"
	case a.header != "":
		return a.header
	}
	return apiKeyHeader
}

// simRealm is the realm of the simulator's Bearer challenges.
const simRealm = "etalake-sim"

// credential is the key a request carries where the service wants it
// (Config.Auth): the API_KEY header (spec §5), "Authorization: Bearer
// KEY" (RFC 6750 §2.1), or a header of the configured name; "" when
// there is none. challenge is the WWW-Authenticate of a 401 in the bearer
// scheme (RFC 6750 §3).
func (s *Service) credential(h http.Header) (key, challenge string) {
	if !s.auth.bearer {
		return h.Get(s.auth.keyHeader()), ""
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
	if s.auth.bearer {
		return "as Authorization: Bearer <key>"
	}
	return "in the " + s.auth.keyHeader() + " header"
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
				if strings.EqualFold(name, apiKeyHeader) {
					name = apiKeyHeader // the spec's spelling, not Go's canonical Api_key
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
