package cli

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// TestRetryAfterBeyondTheBudgetFailsFast: a provider asking to retry after
// an hour neither stalls the run nor hides why: the call fails at once
// with the budget named, and stderr said what it was waiting for.
func TestRetryAfterBeyondTheBudgetFailsFast(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := calls.Add(1)
		w.Header().Set("Content-Type", "application/json")
		if n == 1 {
			// The first answer asks for a short wait, within the budget.
			w.Header().Set("Retry-After", "0")
		} else {
			w.Header().Set("Retry-After", "3600")
		}
		w.WriteHeader(http.StatusTooManyRequests)
		w.Write([]byte(`{"error":{"message":"Rate limit reached","type":"requests"}}`))
	}))
	defer srv.Close()
	t.Setenv("OPENAI_API_KEY", "sk-test-retry-budget-0123456789")
	dir := t.TempDir()
	config := filepath.Join(dir, "canary.yaml")
	os.WriteFile(config, []byte("name: retry\nprobes: [direct_answer]\nprompts:\n  - {id: q, text: \"What is 2+2?\"}\n"), 0o644)
	var out, errOut bytes.Buffer
	code := Main(context.Background(), []string{"run", "-c", config, "-p", "openai/gpt-4o-mini", "--base-url", srv.URL + "/v1",
		"--retries", "5", "--max-retry-wait", "30s", "--no-progress", "--store", filepath.Join(dir, "h.db"), "-o", filepath.Join(dir, "run.json")},
		Stdio{In: strings.NewReader(""), Out: &out, Err: &errOut})
	if code != int(ExitUnmeasured) {
		t.Fatalf("got exit %d, want %d\n%s", code, ExitUnmeasured, errOut.String())
	}
	if !strings.Contains(errOut.String(), "warning: openai/gpt-4o-mini (q): HTTP 429 rate limited: concurrency 8, waiting ") {
		t.Errorf("stderr does not say it waited on the provider and why:\n%s", errOut.String())
	}
	saved, _ := os.ReadFile(filepath.Join(dir, "run.json"))
	if !strings.Contains(out.String(), "retry budget") || !strings.Contains(string(saved), "--max-retry-wait") {
		t.Errorf("the failed call does not name the retry budget and its flag:\n%s\n%s", out.String(), saved)
	}
	if got := calls.Load(); got != 2 {
		t.Errorf("got %d calls, want 2: one short retry, then no retry past the budget", got)
	}
}
