package monitor

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

// manyChecks configures n checks of the flip provider, every hour.
func (f *fixture) manyChecks(n int) {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteString("  - name: check-" + fmt.Sprint(i) + "\n    suite: suite/canary.yaml\n    provider: " + f.spec + "\n")
		}
	}
	f.extra = b.String()
}

// fiftyChecks returns a monitor with 50 checks, each with its baseline.
func fiftyChecks(t testing.TB) (*fixture, *Monitor) {
	f := newFixture(t, "")
	f.saveBaseline(3)
	f.manyChecks(50)
	return f, f.monitor(f.config("1h", 1))
}

// afterFiftyChecks returns a monitor with 50 checks, after a run of each,
// and its handler.
func afterFiftyChecks(b *testing.B) (*fixture, http.Handler) {
	f, m := fiftyChecks(b)
	if _, err := m.Once(context.Background()); err != nil {
		b.Fatal(err)
	}
	return f, m.Handler()
}

// BenchmarkMetricsScrape measures one /metrics scrape of a monitor with 50
// checks after a run of each (the spec's budget: 10 ms).
func BenchmarkMetricsScrape(b *testing.B) {
	_, h := afterFiftyChecks(b)
	b.ResetTimer()
	getLoop(b, h, "/metrics")
}

// getLoop serves GET path to h on each round of b's loop, failing on any
// status but 200.
func getLoop(b *testing.B, h http.Handler, path string) {
	req := httptest.NewRequest(http.MethodGet, "http://127.0.0.1:9464"+path, nil)
	for b.Loop() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatal(rec.Code)
		}
	}
}

// TestIdleRSS reports the resident memory of an idle monitor with 50
// checks (the spec's budget: 40 MiB). It measures, never asserts (the
// figure depends on the machine); run it with PROMPTCANARY_RSS=1 and -v.
func TestIdleRSS(t *testing.T) {
	if os.Getenv("PROMPTCANARY_RSS") == "" {
		t.Skip("set PROMPTCANARY_RSS=1 to measure the idle RSS of a monitor with 50 checks")
	}
	f, m := fiftyChecks(t)
	if err := m.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer m.Stop(context.Background())
	eventually(t, "every check waits for its slot", func() bool { return f.clock.waiters() == 51 })
	runtime.GC()
	debug.FreeOSMemory()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	t.Logf("idle monitor, 50 checks: VmRSS %s (Go heap in use %.1f MiB, runtime total %.1f MiB)",
		vmRSS(t), float64(ms.HeapInuse)/(1<<20), float64(ms.Sys-ms.HeapReleased)/(1<<20))
}

// vmRSS reads this process's resident set size from /proc.
func vmRSS(t *testing.T) string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip("no /proc/self/status:", err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "VmRSS:") {
			return strings.TrimSpace(strings.TrimPrefix(l, "VmRSS:"))
		}
	}
	return "unknown"
}

// BenchmarkDashboard serves the overview of a monitor with 50 checks, and
// the page of one, after a run of each: the pages read the store through
// the monitor's cache (web.Versioned), as promptcanary serve does.
func BenchmarkDashboard(b *testing.B) {
	f, h := afterFiftyChecks(b)
	for _, p := range []struct{ name, path string }{{"overview", "/"}, {"check", "/checks/canary/" + url.PathEscape(f.spec)}} {
		b.Run(p.name, func(b *testing.B) {
			b.ReportAllocs()
			getLoop(b, h, p.path)
		})
	}
}
