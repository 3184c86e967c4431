package httpc

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// maxRedirects bounds the redirects followed for one request, as
// net/http's default policy does.
const maxRedirects = 10

// Redirects is a Client's redirect policy.
type Redirects int

const (
	// FollowSameOrigin follows a redirect to the request's own origin
	// and refuses one to another origin (see sameOrigin): the provider
	// clients' policy.
	FollowSameOrigin Redirects = iota
	// NoRedirects follows none: the 3xx answer itself is returned, for
	// the caller to report (a POST turned into a GET, or a token sent to
	// another host, helps no one): the notifiers' policy.
	NoRedirects
)

// client returns c.HTTP (or http.DefaultClient) with its redirect policy
// replaced by c.Redirects': a shallow copy, so the caller's Transport and
// its connection pool are shared and the caller's client is not changed.
func (c *Client) client() *http.Client {
	base := c.HTTP
	if base == nil {
		base = http.DefaultClient
	}
	hc := *base
	switch c.Redirects {
	case NoRedirects:
		hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	default:
		hc.CheckRedirect = sameOrigin(base.CheckRedirect)
	}
	return &hc
}

// SameOrigin returns hc (or http.DefaultClient) with the redirect policy
// of every provider client, for requests not sent through a Client: the
// token requests of Google's auth library, whose bodies hold a signed
// assertion or a refresh token and client secret.
func SameOrigin(hc *http.Client) *http.Client {
	return (&Client{HTTP: hc}).client()
}

// sameOrigin is the redirect policy of every provider client: a redirect
// to the same origin (scheme, host and port) is followed, with the
// request's headers, then checked by next when set; a redirect to another
// origin is refused before any request is sent there, since the headers
// hold the API key (x-api-key, api-key, x-goog-api-key, an http/
// provider's own token…), which net/http would forward to a host that
// is only another port of the same name.
func sameOrigin(next func(*http.Request, []*http.Request) error) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		if len(via) >= maxRedirects {
			return fmt.Errorf("stopped after %d redirects", maxRedirects)
		}
		from := via[len(via)-1].URL
		if origin(from) != origin(req.URL) || origin(via[0].URL) != origin(req.URL) {
			return &redirectError{from: from, to: req.URL}
		}
		if next != nil {
			return next(req, via)
		}
		return nil
	}
}

// origin returns scheme://host:port of u, lower-cased, with the scheme's
// default port filled in.
func origin(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	if port == "" {
		switch scheme {
		case "http":
			port = "80"
		case "https":
			port = "443"
		}
	}
	return scheme + "://" + strings.ToLower(u.Hostname()) + ":" + port
}

// redirectError is a redirect to another origin that was refused.
type redirectError struct{ from, to *url.URL }

func (e *redirectError) Error() string {
	return fmt.Sprintf("refused redirect from %s to %s: another origin would receive the credentials (set base_url to the final address)",
		e.from.Redacted(), e.to.Redacted())
}
