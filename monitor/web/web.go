package web

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/promptcanary/promptcanary/store"
)

// Options configures the dashboard.
type Options struct {
	// Source is the monitor the pages read and act on. It is required.
	Source Source
	// AdminToken is the bearer token of the actions (acknowledge an
	// incident, promote a run to baseline); "" turns the actions off.
	AdminToken string
	// Metrics, when not nil, is served at /metrics.
	Metrics http.Handler
	// ActionsAllowed turns the actions on; they also need AdminToken.
	// Without them the pages show no form and every action answers 403.
	ActionsAllowed bool
	// BaseURL is the dashboard's address as browsers see it
	// ("https://canary.example.com") when a proxy serves it: the origin
	// that action forms must be posted from. "" takes the request's Host.
	BaseURL string
	// Now returns the current time for relative times; nil means
	// time.Now.
	Now func() time.Time
	// AllowedHosts are the names (a host, or host:port) the dashboard
	// answers to besides IP addresses and localhost: a request with
	// another Host header gets 421, against DNS rebinding ("*" allows
	// any; /healthz and /readyz answer any). nil turns the check off.
	AllowedHosts []string
	// Logger receives the errors of the store that pages and the API
	// could not read; nil discards them.
	Logger *slog.Logger
}

// Log keys.
const (
	logErr  = "err"
	logPath = "path"
	logHost = "host"
)

// server is the handler New returns.
type server struct {
	src     Source
	now     func() time.Time
	log     *slog.Logger
	token   string
	actions bool
	// origin is the scheme and host of Options.BaseURL, "" when unset.
	origin string
	secure bool
	hosts  hostPolicy
	assets *assets
	pages  *pageSet
	// rendered keeps the overview and check pages of visitors not signed
	// in; nil when the Source is not Versioned.
	rendered *pageCache
	// failures limits wrong tokens, at the login form and the API alike.
	failures *rate.Limiter
	// baseSizes caches the number of results of each baseline's run
	// (snapshot id → n), for the band of the pass-rate chart.
	baseSizes sync.Map
	mux       *http.ServeMux
}

// New returns the dashboard and JSON API of the monitor o.Source:
//
//	/                                  checks overview
//	/checks/{check}/{provider}         a check's history (provider escaped as one segment, see CheckPath)
//	/runs/{id}                         a run's drift report or results
//	/incidents, /incidents/{id}        incidents, one incident with its events and notifications
//	/login, /logout                    the session of the actions
//	/api/v1/…                          the JSON API
//	/healthz, /readyz, /metrics        probes and Prometheus metrics
//	/static/…                          the embedded stylesheet and script
//
// It panics when o.Source is nil.
func New(o Options) http.Handler {
	if o.Source == nil {
		panic("web: New: nil Source")
	}
	s := &server{
		src:      withCache(o.Source),
		now:      o.Now,
		log:      o.Logger,
		token:    o.AdminToken,
		actions:  o.ActionsAllowed && o.AdminToken != "",
		assets:   loadAssets(),
		failures: rate.NewLimiter(rate.Every(2*time.Second), 10),
		hosts:    newHostPolicy(o.AllowedHosts),
		mux:      http.NewServeMux(),
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.log == nil {
		s.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if u, err := url.Parse(o.BaseURL); err == nil && u.Host != "" {
		s.origin = strings.ToLower(u.Scheme + "://" + u.Host)
		s.secure = u.Scheme == "https"
	}
	if v, ok := o.Source.(Versioned); ok {
		s.rendered = &pageCache{src: v, pages: map[string]*capture{}}
	}
	s.pages = parsePages(s)
	s.routes(o.Metrics)
	return s
}

func (s *server) routes(metrics http.Handler) {
	m := s.mux
	m.HandleFunc("GET /{$}", s.overview)
	m.HandleFunc("GET /checks/{check}/{provider...}", s.checkPage)
	m.HandleFunc("POST /checks/{check}/{provider}/promote", s.promoteForm)
	m.HandleFunc("GET /runs/{id}", s.runPage)
	m.HandleFunc("GET /incidents", s.incidentsPage)
	m.HandleFunc("GET /incidents/{id}", s.incidentPage)
	m.HandleFunc("POST /incidents/{id}/ack", s.ackForm)
	m.HandleFunc("GET /login", s.loginPage)
	m.HandleFunc("POST /login", s.login)
	m.HandleFunc("POST /logout", s.logout)
	m.HandleFunc("GET /healthz", s.healthz)
	m.HandleFunc("GET /readyz", s.readyz)
	m.HandleFunc("GET /static/{file}", s.static)
	if metrics != nil {
		m.Handle("/metrics", metrics)
	}
	m.HandleFunc("/", s.notFoundPage)
	s.apiRoutes()
}

// ServeHTTP sets the headers every answer carries, refuses a Host it does
// not serve and a body over MaxBody, and routes r.
func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "same-origin")
	if !s.guard(w, r) {
		return
	}
	if s.rendered != nil && cacheablePage(r) && s.session(r) == nil {
		s.rendered.serve(w, r, s.mux)
		return
	}
	s.mux.ServeHTTP(w, r)
}

func (s *server) healthz(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	io.WriteString(w, "ok\n")
}

func (s *server) readyz(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
	defer cancel()
	if err := s.src.Ready(ctx); err != nil {
		w.WriteHeader(http.StatusServiceUnavailable)
		io.WriteString(w, "not ready: "+oneLine(err.Error())+"\n")
		return
	}
	io.WriteString(w, "ok\n")
}

// storeFailed logs a failed read of the store and says what failed without
// the error's text, which may name paths or addresses.
func (s *server) storeFailed(r *http.Request, what string, err error) string {
	s.log.Error("dashboard: "+what, logPath, r.URL.Path, logErr, err)
	return "could not " + what + ": the store failed (see the monitor's log)"
}

// notFound reports whether err is the store's not-found or ambiguous-id
// error, which a page shows as the visitor's mistake.
func notFound(err error) bool {
	return errors.Is(err, store.ErrNotFound) || errors.Is(err, store.ErrAmbiguous)
}

// oneLine keeps the first line of s, at most 300 bytes of it.
func oneLine(s string) string {
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = s[:i]
	}
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// digest is a short hash of b, for cache-busting asset URLs.
func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:6])
}
