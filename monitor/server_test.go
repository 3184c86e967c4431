package monitor

import (
	"bufio"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// status sends raw, one HTTP/1.1 request, to addr and returns the status
// line of the answer.
func status(t *testing.T, addr, raw string) string {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// The server may answer and close before it has read everything.
	go func() { _, _ = c.Write([]byte(raw)) }()
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		t.Fatalf("read the answer: %v", err)
	}
	return strings.TrimSpace(line)
}

// The monitor's server bounds headers, bodies, time and connections, and
// answers only to the names it is reached by.
func TestServerLimits(t *testing.T) {
	f := newFixture(t, "")
	f.saveBaseline(3)
	f.top = "allowed_hosts: [canary.internal]\n"
	m := f.monitor(f.config("1h", 1))
	f.started(m)
	addr := m.Addr()
	_, port, _ := net.SplitHostPort(addr)
	huge := strings.Repeat("a", 200<<10)
	tests := []struct {
		name, raw, want string
	}{
		{"oversized header", "GET / HTTP/1.1\r\nHost: " + addr + "\r\nX-Big: " + huge + "\r\n\r\n", "HTTP/1.1 431"},
		{"oversized body", "POST /api/v1/incidents/x/ack HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/json\r\nContent-Length: 1048576\r\n\r\n" + huge, "HTTP/1.1 413"},
		{"oversized form", "POST /login HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 204800\r\n\r\n" + huge, "HTTP/1.1 413"},
		{"rebinding name", "GET /api/v1/checks HTTP/1.1\r\nHost: attacker.example:" + port + "\r\n\r\n", "HTTP/1.1 421"},
		{"rebinding name, metrics", "GET /metrics HTTP/1.1\r\nHost: attacker.example\r\n\r\n", "HTTP/1.1 421"},
		{"no host", "GET / HTTP/1.0\r\n\r\n", "HTTP/1.0 421"},
		{"probe by any name", "GET /readyz HTTP/1.1\r\nHost: canary-0.canary.svc:" + port + "\r\n\r\n", "HTTP/1.1 200"},
		{"the listen address", "GET /api/v1/checks HTTP/1.1\r\nHost: " + addr + "\r\n\r\n", "HTTP/1.1 200"},
		{"localhost", "GET /api/v1/checks HTTP/1.1\r\nHost: localhost:" + port + "\r\n\r\n", "HTTP/1.1 200"},
		{"IPv6 loopback", "GET /api/v1/checks HTTP/1.1\r\nHost: [::1]:" + port + "\r\n\r\n", "HTTP/1.1 200"},
		{"allowed_hosts", "GET /api/v1/checks HTTP/1.1\r\nHost: Canary.Internal:" + port + "\r\n\r\n", "HTTP/1.1 200"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := status(t, addr, tc.raw); !strings.HasPrefix(got, tc.want) {
				t.Errorf("got %q, want %s", got, tc.want)
			}
		})
	}
	srv := m.http.srv
	for name, d := range map[string]time.Duration{"ReadHeaderTimeout": srv.ReadHeaderTimeout, "ReadTimeout": srv.ReadTimeout,
		"WriteTimeout": srv.WriteTimeout, "IdleTimeout": srv.IdleTimeout} {
		if d <= 0 {
			t.Errorf("got %s %v, want a bound", name, d)
		}
	}
	if srv.MaxHeaderBytes != MaxHeaderBytes {
		t.Errorf("got MaxHeaderBytes %d, want %d", srv.MaxHeaderBytes, MaxHeaderBytes)
	}
	if _, ok := m.http.ln.(*limitListener); !ok {
		t.Errorf("got listener %T, want the connection cap", m.http.ln)
	}
}

// A host the monitor does not serve is told how to add it.
func TestMisdirectedHostHint(t *testing.T) {
	_, m := newOneSample(t, "1h")
	req, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1/", nil)
	req.Host = "rebind.example"
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, req)
	if rec.Code != http.StatusMisdirectedRequest || !strings.Contains(rec.Body.String(), "allowed_hosts:") {
		t.Errorf("got %d %q, want 421 naming allowed_hosts:", rec.Code, rec.Body.String())
	}
}

// The listener serves at most its cap of connections at once; closing
// one lets the next in.
func TestLimitListener(t *testing.T) {
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln := limitListen(inner, 2)
	defer ln.Close()
	var conns []net.Conn
	for range 3 {
		c, err := net.Dial("tcp", inner.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
	}
	for range 2 {
		c, err := ln.Accept()
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	third := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err == nil {
			third <- c
		}
		close(third)
	}()
	select {
	case <-third:
		t.Fatal("a third connection was accepted while two were open")
	case <-time.After(50 * time.Millisecond):
	}
	conns[0].Close()
	conns[0].Close() // a second close frees nothing more
	c, ok := <-third
	if !ok {
		t.Fatal("the third connection was never accepted")
	}
	c.Close()
	if n := len(ln.(*limitListener).sem); n != 1 {
		t.Errorf("got %d places taken, want 1", n)
	}
}
