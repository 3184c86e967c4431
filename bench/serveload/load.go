package main

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// scenario is one load on a fresh monitor.
type scenario struct {
	name string
	// drive loads the monitor at addr for d and returns what it saw.
	drive func(addr string, o options) result
}

// result is what the clients of a scenario saw.
type result struct {
	clients   int
	requests  int
	errors    int // answers other than the expected status, and failed requests
	elapsed   time.Duration
	latencies []time.Duration // of the page scenarios, sorted
	statuses  map[string]int  // of the flood scenarios
}

var scenarios = map[string]scenario{
	"overview": {"overview, N checks", func(addr string, o options) result { return pages(addr, "/", o) }},
	"check": {"check page, N runs", func(addr string, o options) result {
		return pages(addr, "/checks/check-0/"+url.PathEscape(provider), o)
	}},
	"headers": {"header flood", func(addr string, o options) result { return flood(addr, o, false) }},
	"bodies":  {"body flood", func(addr string, o options) result { return flood(addr, o, true) }},
}

// pages has o.clients clients GET path, each waiting for its answer
// before the next request, for o.duration.
func pages(addr, path string, o options) result {
	// Compression is asked for, as browsers do, but not undone: a
	// browser inflates on its own machine, not on the monitor's cores.
	tr := &http.Transport{MaxIdleConnsPerHost: o.clients, MaxConnsPerHost: o.clients, DisableCompression: true}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: time.Minute}
	req, err := http.NewRequest(http.MethodGet, "http://"+addr+path, nil)
	if err != nil {
		return result{errors: 1}
	}
	req.Header.Set("Accept-Encoding", "gzip")
	lat := make([][]time.Duration, o.clients)
	var errs atomic.Int64
	start := time.Now()
	deadline := start.Add(o.duration)
	var wg sync.WaitGroup
	for i := range o.clients {
		wg.Go(func() {
			for time.Now().Before(deadline) {
				t0 := time.Now()
				resp, err := client.Do(req.Clone(context.Background()))
				if err != nil {
					errs.Add(1)
					continue
				}
				drain(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					errs.Add(1)
				}
				lat[i] = append(lat[i], time.Since(t0))
			}
		})
	}
	wg.Wait()
	r := result{clients: o.clients, elapsed: time.Since(start), errors: int(errs.Load())}
	for _, l := range lat {
		r.latencies = append(r.latencies, l...)
	}
	slices.Sort(r.latencies)
	r.requests = len(r.latencies)
	return r
}

// flood opens o.floodConns connections at once, each sending one request
// with o.floodKB KiB of header (or of body, to /login), and reads the
// status line of the answer; rounds follow each other for o.duration.
func flood(addr string, o options, body bool) result {
	pad := strings.Repeat("a", o.floodKB<<10)
	var req string
	if body {
		req = "POST /login HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: " +
			strconv.Itoa(len(pad)) + "\r\n\r\n" + pad
	} else {
		req = "GET / HTTP/1.1\r\nHost: " + addr + "\r\nX-Pad: " + pad + "\r\n\r\n"
	}
	r := result{clients: o.floodConns, statuses: map[string]int{}}
	var mu sync.Mutex
	start := time.Now()
	for time.Since(start) < o.duration {
		var wg sync.WaitGroup
		for range o.floodConns {
			wg.Go(func() {
				st := send(addr, req)
				mu.Lock()
				r.statuses[st]++
				r.requests++
				mu.Unlock()
			})
		}
		wg.Wait()
	}
	r.elapsed = time.Since(start)
	for st, n := range r.statuses {
		if st != "431" && st != "413" {
			r.errors += n
		}
	}
	return r
}

// send writes raw on a new connection and returns the answer's status
// code, or what went wrong.
func send(addr, raw string) string {
	c, err := net.DialTimeout("tcp", addr, 30*time.Second)
	if err != nil {
		return "dial error"
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Minute))
	// The server may answer, and close, before it has read everything.
	go func() { _, _ = c.Write([]byte(raw)) }()
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return "no answer"
	}
	if f := strings.Fields(line); len(f) >= 2 {
		return f[1]
	}
	return "garbled"
}

// procStats are a process's memory and descriptors.
type procStats struct {
	rss, hwm int64 // bytes; 0 when unknown
	fds      int   // -1 when unknown
}

// statsOf reads pid's VmRSS, VmHWM and open descriptors from /proc.
func statsOf(pid int) procStats {
	s := procStats{fds: -1}
	if data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid)); err == nil {
		for _, l := range strings.Split(string(data), "\n") {
			k, v, ok := strings.Cut(l, ":")
			if !ok {
				continue
			}
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			switch k {
			case "VmRSS":
				s.rss = kb << 10
			case "VmHWM":
				s.hwm = kb << 10
			}
		}
	}
	if ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid)); err == nil {
		s.fds = len(ents)
	}
	return s
}

// measure runs sc on a fresh monitor and prints its row.
func measure(cfg string, o options, sc scenario) error {
	c, err := startChild(cfg)
	if err != nil {
		return err
	}
	pid := c.cmd.Process.Pid
	// One request of each page first: templates parsed, store opened.
	for _, p := range []string{"/", "/checks/check-0/" + url.PathEscape(provider)} {
		if resp, err := http.Get("http://" + c.addr + p); err == nil {
			drain(resp.Body)
			resp.Body.Close()
		}
	}
	idle := statsOf(pid)
	res := sc.drive(c.addr, o)
	peak := statsOf(pid)
	time.Sleep(o.settle)
	after := statsOf(pid)
	if err := c.stop(); err != nil {
		return fmt.Errorf("stop the monitor: %w", err)
	}
	printRow(sc, o, res, idle, peak, after)
	return nil
}

func printHeader() {
	fmt.Println("| scenario | clients | requests | req/s | p50 | p99 | unexpected | RSS idle | RSS peak (HWM) | RSS after | fds idle | fds at end of load | fds after |")
	fmt.Println("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
}

func printRow(sc scenario, o options, r result, idle, peak, after procStats) {
	name := strings.NewReplacer("N checks", strconv.Itoa(o.checks)+" checks", "N runs", strconv.Itoa(o.runs)+" runs").Replace(sc.name)
	p50, p99 := "–", "–"
	if n := len(r.latencies); n > 0 {
		p50, p99 = ms(r.latencies[n/2]), ms(r.latencies[min(n-1, n*99/100)])
	}
	unexpected := strconv.Itoa(r.errors)
	if r.statuses != nil {
		var parts []string
		for st, n := range r.statuses {
			parts = append(parts, fmt.Sprintf("%s×%d", st, n))
		}
		slices.Sort(parts)
		unexpected += " (" + strings.Join(parts, ", ") + ")"
	}
	fmt.Printf("| %s | %d | %d | %.0f | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", name, r.clients, r.requests,
		float64(r.requests)/r.elapsed.Seconds(), p50, p99, unexpected, mib(idle.rss), mib(peak.hwm), mib(after.rss),
		fds(idle.fds), fds(peak.fds), fds(after.fds))
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }

func mib(b int64) string {
	if b <= 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
}

func fds(n int) string {
	if n < 0 {
		return "n/a"
	}
	return strconv.Itoa(n)
}
