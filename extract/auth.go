package extract

import (
	"fmt"
	"net/http"
	"net/textproto"
	"strings"
)

// Auth is how the client sends the API key: the service's API_KEY header
// (the zero value), an Authorization: Bearer header, or a header of the
// provider's own name. DCSA Commercial Schedules defines no security
// scheme, so each carrier's schedule API chooses; the key goes in the
// chosen header only, never in another.
type Auth struct {
	scheme authScheme
	header string // AuthHeader's name, as the user spelled it
}

type authScheme int

const (
	authAPIKey authScheme = iota
	authBearer
	authHeader
)

// APIKeyHeader is the service's header for the key (spec §5).
const APIKeyHeader = "API_KEY"

// The schemes' names, as ParseAuth reads them and Auth.String writes them.
const (
	AuthNameAPIKey = "api-key"
	AuthNameBearer = "bearer"
	AuthNameHeader = "header" // header:NAME
)

// AuthForms lists the accepted settings, for messages and help.
const AuthForms = "api-key (the API_KEY header, the default), bearer (Authorization: Bearer KEY) or header:NAME (the key as the value of header NAME)"

// ParseAuth reads an authentication setting: "api-key" (or ""), "bearer"
// or "header:NAME", NAME an HTTP field name (RFC 9110 §5.1: a token)
// that neither the client nor the transport sets itself.
func ParseAuth(s string) (Auth, error) {
	t := strings.TrimSpace(s)
	word, name, hasName := strings.Cut(t, ":")
	switch w := strings.ToLower(strings.TrimSpace(word)); {
	case t == "" || (w == AuthNameAPIKey && !hasName):
		return Auth{}, nil
	case w == AuthNameBearer && !hasName:
		return Auth{scheme: authBearer}, nil
	case w == AuthNameHeader && hasName:
		name = strings.TrimSpace(name)
		if err := checkAuthHeader(name); err != nil {
			return Auth{}, err
		}
		return Auth{scheme: authHeader, header: name}, nil
	case w == AuthNameHeader:
		return Auth{}, fmt.Errorf("authentication %q: name the header, as in header:X-API-Key", s)
	}
	return Auth{}, fmt.Errorf("unknown authentication %q: want %s", s, AuthForms)
}

// reservedHeaders are the fields a key may not be sent in: the transport
// writes them from the request itself (framing, connection, host), the
// client sets them (Accept, User-Agent), or they are meant for a proxy.
var reservedHeaders = map[string]bool{
	"Host": true, "Content-Length": true, "Content-Type": true, "Transfer-Encoding": true, "Te": true, "Trailer": true,
	"Connection": true, "Keep-Alive": true, "Proxy-Connection": true, "Upgrade": true, "Accept-Encoding": true,
	"Accept": true, "User-Agent": true, "Proxy-Authorization": true,
}

// checkAuthHeader refuses a header name that is not an HTTP token or that
// is reserved (reservedHeaders).
func checkAuthHeader(name string) error {
	if name == "" {
		return fmt.Errorf("authentication header:NAME with an empty NAME: name the header, as in header:X-API-Key")
	}
	for i := 0; i < len(name); i++ {
		if !isTchar(name[i]) {
			return fmt.Errorf("authentication header %q: %q is not allowed in a header name, which is letters, digits and !#$%%&'*+-.^_`|~", name, name[i:i+1])
		}
	}
	if c := textproto.CanonicalMIMEHeaderKey(name); reservedHeaders[c] {
		return fmt.Errorf("authentication header %q: %s is not a header a key can go in (the HTTP client sets it itself)", name, c)
	}
	return nil
}

// isTchar reports whether c may appear in a token (RFC 9110 §5.6.2).
func isTchar(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

// String is the setting as ParseAuth reads it: api-key, bearer or
// header:NAME. It holds no key.
func (a Auth) String() string {
	switch a.scheme {
	case authBearer:
		return AuthNameBearer
	case authHeader:
		return AuthNameHeader + ":" + a.header
	}
	return AuthNameAPIKey
}

// Header is the name of the header that carries the key: API_KEY,
// Authorization, or the name given.
func (a Auth) Header() string {
	switch a.scheme {
	case authBearer:
		return "Authorization"
	case authHeader:
		return a.header
	}
	return APIKeyHeader
}

// Bearer reports whether the key is sent as a bearer token (RFC 6750
// §2.1): the header's value is "Bearer KEY".
func (a Auth) Bearer() bool { return a.scheme == authBearer }

// Want says how the key is sent, for messages: "the API_KEY header",
// "the Authorization header, as Bearer <key>", "the X-API-Key header".
func (a Auth) Want() string {
	if a.Bearer() {
		return "the Authorization header, as Bearer <key>"
	}
	return "the " + a.Header() + " header"
}

// set puts the key in h the way a says, and nowhere else. The name is
// set as spelled (API_KEY's canonical form would be "Api_key").
func (a Auth) set(h http.Header, secret string) {
	if a.Bearer() {
		h.Set("Authorization", "Bearer "+secret)
		return
	}
	h[a.Header()] = []string{secret}
}
