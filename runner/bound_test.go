package runner

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
	"github.com/promptcanary/promptcanary/provider"
	_ "github.com/promptcanary/promptcanary/provider/openai"
)

// bigAnswer answers every call with content of n bytes.
type bigAnswer struct{ n int }

func (b bigAnswer) Generate(context.Context, *provider.Request) (*promptcanary.Response, error) {
	return &promptcanary.Response{Content: strings.Repeat("é", b.n/2), RawResponse: json.RawMessage(`"` + strings.Repeat("x", b.n) + `"`)}, nil
}

// lengthSpy is a probe that records the length of the answer it judged.
func lengthSpy(seen *int) probe.Instance {
	return probe.Instance{ID: "spy", Type: "spy", Name: "Spy", Category: promptcanary.CategoryCustom, Probe: probe.Func(func(_ context.Context, in probe.Input) probe.Result {
		r := in.Response
		*seen = len(r.Content)
		return probe.Result{Passed: true, Score: 1, Details: "judged an answer"}
	})}
}

// TestAnswerBound: an answer longer than the bound is cut before the probes
// judge it, on a character boundary; the response records the cut and the
// whole size, drops its raw body, and the probe's details say it judged
// the part kept. An answer within the bound is left alone.
func TestAnswerBound(t *testing.T) {
	tests := []struct {
		name      string
		max, size int
		wantLen   int
		truncated bool
	}{
		{"default bound, 5 MB answer", 0, 5_000_000, promptcanary.DefaultMaxAnswerBytes, true},
		{"configured bound", 4097, 10_000, 4096, true},
		{"within the bound", 0, 1000, 1000, false},
		{"no bound", -1, 3 << 20, 3 << 20, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var seen int
			plan := &Plan{Suite: "s", Samples: 1, Config: promptcanary.ProviderConfig{ModelID: "fake/m"},
				Items: []Item{{Prompt: promptcanary.Prompt{ID: "p", Text: "q"}, Probes: []probe.Instance{lengthSpy(&seen)}}}}
			opts := fixedOpts()
			opts.MaxAnswerBytes = tc.max
			run, err := Execute(context.Background(), plan, bigAnswer{tc.size}, opts)
			if err != nil {
				t.Fatal(err)
			}
			r := run.LLMResponses[0]
			if r.ContentLen() != int64(tc.wantLen) || seen != tc.wantLen {
				t.Errorf("got %d bytes kept, %d judged, want %d", r.ContentLen(), seen, tc.wantLen)
			}
			if whole, err := r.FullContent(); err != nil || len(whole) != tc.wantLen {
				t.Errorf("got %d bytes back (%v), want %d", len(whole), err, tc.wantLen)
			}
			// What a run holds in memory of an answer past the head.
			if len(r.Content) > promptcanary.AnswerHeadBytes || (tc.wantLen > promptcanary.AnswerHeadBytes) != (r.Spill != nil) {
				t.Errorf("got %d bytes held (spilled %v), want at most %d", len(r.Content), r.Spill != nil, promptcanary.AnswerHeadBytes)
			}
			if r.Truncated != tc.truncated {
				t.Errorf("got truncated %v, want %v", r.Truncated, tc.truncated)
			}
			details := run.ProbeResults[0].Details
			if !tc.truncated {
				if r.OriginalBytes != 0 || details != "judged an answer" || r.RawResponse == nil {
					t.Errorf("an answer kept whole changed: original %d, details %q, raw %d bytes", r.OriginalBytes, details, len(r.RawResponse))
				}
				return
			}
			if r.OriginalBytes != int64(tc.size) {
				t.Errorf("got original_bytes %d, want %d", r.OriginalBytes, tc.size)
			}
			if r.RawResponse != nil {
				t.Errorf("got a raw response of %d bytes, want it dropped", len(r.RawResponse))
			}
			if want := "judged an answer (judged the part kept: " + r.CutNote() + ")"; details != want {
				t.Errorf("got details %q, want %q", details, want)
			}
		})
	}
}

// TestAnswerBoundOverHTTP: an OpenAI-compatible server answering 5 MB is
// read through the bound, so the client never decodes the whole answer,
// and the response says how large it was.
func TestAnswerBoundOverHTTP(t *testing.T) {
	const size = 5 << 20
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"model":"m","choices":[{"finish_reason":"stop","message":{"role":"assistant","content":"`))
		chunk := []byte(strings.Repeat(`abc\n`, 1<<10)) // 4 KiB of answer
		for range size / (4 << 10) {
			w.Write(chunk)
		}
		w.Write([]byte(`"}}],"usage":{"prompt_tokens":3,"completion_tokens":5}}`))
	}))
	defer srv.Close()
	p, err := provider.Open("openai/m", provider.Options{Settings: map[string]any{"base_url": srv.URL + "/v1"},
		Getenv: func(string) string { return "sk-test-0123456789abcdef" }})
	if err != nil {
		t.Fatal(err)
	}
	var seen int
	plan := &Plan{Suite: "s", Samples: 1, Config: promptcanary.ProviderConfig{ModelID: "openai/m"},
		Items: []Item{{Prompt: promptcanary.Prompt{ID: "p", Text: "q"}, Probes: []probe.Instance{lengthSpy(&seen)}}}}
	run, err := Execute(context.Background(), plan, p, fixedOpts())
	if err != nil || len(run.LLMResponses) != 1 {
		t.Fatalf("got %v, errors %v", err, run.Errors)
	}
	r := run.LLMResponses[0]
	if kept := r.ContentLen(); !r.Truncated || r.OriginalBytes != size || kept > promptcanary.DefaultMaxAnswerBytes || kept < promptcanary.DefaultMaxAnswerBytes/2 {
		t.Errorf("got truncated %v, %d bytes kept of %d, want a cut 5 MiB answer", r.Truncated, kept, r.OriginalBytes)
	}
	if r.CompletionTokens != 5 {
		t.Errorf("got %d completion tokens, want the usage after the cut string read", r.CompletionTokens)
	}
	if got := r.CutNote(); got != "answer cut to 819.2 KiB of 5.0 MiB" {
		t.Errorf("got note %q", got)
	}
}
