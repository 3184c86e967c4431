package web

import (
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
)

// MaxBody bounds the body of every request: the dashboard's forms and the
// API's JSON bodies are a few hundred bytes. A larger declared body is
// answered 413 before any handler runs; a larger chunked body fails the
// handler's read.
const MaxBody = 64 << 10

// hostPolicy decides which Host headers the dashboard answers to, against
// DNS rebinding: a page of another site whose name resolves to this
// monitor's address sends that site's name as the Host.
type hostPolicy struct {
	// any turns the check off.
	any bool
	// names are the allowed host names, lower case, without ports.
	names []string
}

// newHostPolicy allows names (host names or host:port, "*" for any) on
// top of loopback names and every IP address; nil names allow any host.
func newHostPolicy(names []string) hostPolicy {
	if names == nil {
		return hostPolicy{any: true}
	}
	var p hostPolicy
	for _, n := range names {
		if n == "*" {
			return hostPolicy{any: true}
		}
		if h, _, err := net.SplitHostPort(n); err == nil {
			n = h
		}
		n = strings.ToLower(strings.TrimSuffix(strings.Trim(n, "[]"), "."))
		if n != "" && !slices.Contains(p.names, n) {
			p.names = append(p.names, n)
		}
	}
	return p
}

// allows reports whether the Host header host (with or without a port)
// names this monitor: an IP address (a browser that reaches the monitor
// by its address is on that address's origin, which no rebinding forges),
// localhost or a name under .localhost, or one of the allowed names.
func (p hostPolicy) allows(host string) bool {
	if p.any {
		return true
	}
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.ToLower(strings.TrimSuffix(strings.Trim(host, "[]"), "."))
	switch {
	case host == "":
		return false
	case net.ParseIP(host) != nil:
		return true
	case host == "localhost" || strings.HasSuffix(host, ".localhost"):
		return true
	}
	return slices.Contains(p.names, host)
}

// probePath reports whether path is one of the probes (/healthz, /readyz)
// that orchestrators call by whatever name they know the monitor under:
// they show nothing a rebinding page could steal.
func probePath(path string) bool { return path == "/healthz" || path == "/readyz" }

// guard answers what no handler should see: a Host this monitor does not
// serve (421) and a declared body over MaxBody (413). Every other request
// gets a body bounded by MaxBody. It reports whether the request may go on.
func (s *server) guard(w http.ResponseWriter, r *http.Request) bool {
	if !probePath(r.URL.Path) && !s.hosts.allows(r.Host) {
		s.log.Warn("dashboard: request for a host this monitor does not serve", logHost, oneLine(r.Host), logPath, oneLine(r.URL.Path))
		plain(w, http.StatusMisdirectedRequest, "this monitor does not answer to the host "+quote(oneLine(r.Host))+
			": add the name to allowed_hosts: in monitor.yaml (or set base_url:)\n")
		return false
	}
	if r.ContentLength > MaxBody {
		w.Header().Set("Connection", "close")
		plain(w, http.StatusRequestEntityTooLarge, "request body too large: at most 64 KiB\n")
		return false
	}
	if r.Body != nil && r.Body != http.NoBody {
		r.Body = http.MaxBytesReader(w, r.Body, MaxBody)
	}
	return true
}

// plain answers status with a text body.
func plain(w http.ResponseWriter, status int, text string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	io.WriteString(w, text)
}
