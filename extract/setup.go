package extract

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/etalake/etalake/wire"
)

// Errors of an attempt that no retry mends: the setup is wrong, not the
// network. Each comes inside a *MisconfigError, so the product stops after
// its first request and the job ends as for a wrong URL.
var (
	// ErrRedirectRefused: the server redirected to another host, or from
	// https to http, and the client refused to follow, the key being sent
	// with every request.
	ErrRedirectRefused = errors.New("redirect refused")
	// ErrUntrusted: the server's TLS certificate does not verify: signed
	// by a CA this machine does not trust, for another host, or expired.
	ErrUntrusted = errors.New("the server's TLS certificate is not trusted")
)

// refusedSetup tells whether err, an attempt of r that got no answer,
// failed for a reason no retry mends (a redirect refused, a certificate
// not trusted), and if so returns it as the product's *MisconfigError
// with the credit outcome of the attempt: a refused redirect's answer was
// a 3xx, no success, so nothing charged; a handshake that failed sent
// nothing.
func (c *Client) refusedSetup(r *request, err error) (*MisconfigError, outcome) {
	e := &MisconfigError{Product: r.product, URL: r.url.Scheme + "://" + r.url.Host + c.cfg.Key.RedactString(r.url.RequestURI())}
	if r.product == wire.ProductSchedule {
		e.Profile = c.cfg.ScheduleAPI
	}
	var (
		unknownCA *x509.UnknownAuthorityError
		hostname  x509.HostnameError
		invalid   x509.CertificateInvalidError
		verify    *tls.CertificateVerificationError
		record    tls.RecordHeaderError
	)
	switch {
	case errors.Is(err, ErrRedirectRefused):
		e.Err = ErrRedirectRefused
		e.Why = fmt.Sprintf("%s; set the product's base URL to where the server sends it, if that is the service, in https", cause(err))
		return e, outcomeNotCharged
	case errors.As(err, &unknownCA), errors.As(err, &hostname), errors.As(err, &invalid), errors.As(err, &verify):
		e.Err = ErrUntrusted
		e.Why = fmt.Sprintf("%v (%s); if the server is the service behind a CA of your own, add that CA's certificate (PEM) to the machine's trusted ones, "+
			"or point SSL_CERT_FILE at a file holding it (SSL_CERT_DIR at a directory of them)", ErrUntrusted, cause(err))
		return e, outcomeNotSent
	case errors.As(err, &record):
		// An https URL to a server that speaks plain HTTP.
		e.Err = ErrUntrusted
		e.Why = fmt.Sprintf("the server does not speak TLS on that port (%s): the URL's scheme or port is wrong", cause(err))
		return e, outcomeNotSent
	}
	return nil, outcomeUnknown
}

// cause is the innermost words of a transport failure, without the
// request the MisconfigError names already.
func cause(err error) string {
	var te *TransportError
	if errors.As(err, &te) {
		return te.Err.Error()
	}
	return err.Error()
}

// loopback reports whether host (a URL's Hostname) is this machine:
// localhost, 127.0.0.0/8 or ::1. What goes there in clear crosses no
// network.
func loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Loopback reports whether a base URL's host is this machine (localhost,
// 127.0.0.0/8, ::1): the one place plain http:// is taken without
// Config.AllowInsecureHTTP. A URL that does not parse is not.
func Loopback(base string) bool {
	u, err := url.Parse(strings.TrimSpace(base))
	return err == nil && loopback(u.Hostname())
}
