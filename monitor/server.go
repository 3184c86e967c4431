package monitor

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"
)

// The limits of the monitor's HTTP server: every connection is bounded in
// size and time, so that a flood of slow or huge requests costs a bounded
// amount of memory (see "Server limits" in docs/dashboard.md).
const (
	// MaxHeaderBytes bounds a request's header block (browsers send a
	// few KiB, cookies included); a larger one is answered 431.
	MaxHeaderBytes = 32 << 10
	// MaxConns bounds the connections served at once; more wait in the
	// kernel's accept queue until one closes.
	MaxConns = 256
	// The server's timeouts: reading the header, the whole request, the
	// answer, and an idle keep-alive connection.
	readHeaderTimeout = 10 * time.Second
	readTimeout       = 30 * time.Second
	writeTimeout      = 60 * time.Second
	idleTimeout       = 60 * time.Second
)

// newServer returns the monitor's HTTP server for h with every limit set.
func newServer(h http.Handler, log *slog.Logger) *http.Server {
	return &http.Server{
		Handler:           h,
		MaxHeaderBytes:    MaxHeaderBytes,
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		WriteTimeout:      writeTimeout,
		IdleTimeout:       idleTimeout,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
}

// allowedHosts are the names the dashboard answers to (see
// web.Options.AllowedHosts): the configured allowed_hosts, the listen
// address's host and base_url's host. IP addresses and localhost are
// always allowed.
func (m *Monitor) allowedHosts() []string {
	names := append([]string{}, m.cfg.AllowedHosts...)
	if host, _, err := net.SplitHostPort(m.cfg.Listen); err == nil && host != "" {
		names = append(names, host)
	}
	if u, err := url.Parse(m.baseURL); err == nil && u.Hostname() != "" {
		names = append(names, u.Hostname())
	}
	return names
}

// serving is the monitor's HTTP server: the dashboard, the API and
// /metrics on the configured address.
type serving struct {
	ln   net.Listener
	srv  *http.Server
	addr string
	errc chan error // Serve's error
}

// start serves h on ln, at most MaxConns connections at once, until stop.
func (s *serving) start(ln net.Listener, h http.Handler, log *slog.Logger) {
	s.addr = ln.Addr().String()
	s.ln = limitListen(ln, MaxConns)
	s.srv = newServer(h, log)
	s.errc = make(chan error, 1)
	go func() { s.errc <- s.srv.Serve(s.ln) }()
}

// stop closes the listener, lets the requests in flight end until ctx
// does, and returns what went wrong.
func (s *serving) stop(ctx context.Context) error {
	var errs []error
	if err := s.srv.Shutdown(ctx); err != nil {
		errs = append(errs, fmt.Errorf("close the listener: %w", err))
		_ = s.srv.Close()
	}
	if err := <-s.errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		errs = append(errs, fmt.Errorf("serve: %w", err))
	}
	return errors.Join(errs...)
}

// limitListener accepts at most n connections at once: Accept waits for
// a served connection to close before it takes the next one.
type limitListener struct {
	net.Listener
	sem       chan struct{}
	done      chan struct{}
	closeOnce sync.Once
}

// limitListen bounds ln to n connections at once.
func limitListen(ln net.Listener, n int) net.Listener {
	return &limitListener{Listener: ln, sem: make(chan struct{}, n), done: make(chan struct{})}
}

// Accept waits for a free place, then accepts.
func (l *limitListener) Accept() (net.Conn, error) {
	select {
	case l.sem <- struct{}{}:
	case <-l.done:
		return nil, net.ErrClosed
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.sem
		return nil, err
	}
	return &limitConn{Conn: c, release: func() { <-l.sem }}, nil
}

// Close closes the listener and wakes an Accept waiting for a place.
func (l *limitListener) Close() error {
	l.closeOnce.Do(func() { close(l.done) })
	return l.Listener.Close()
}

// limitConn frees its place once, when it is closed.
type limitConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}
