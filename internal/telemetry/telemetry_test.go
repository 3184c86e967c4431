package telemetry_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/redact"
	"github.com/promptcanary/promptcanary/internal/telemetry"
	"github.com/promptcanary/promptcanary/internal/telemetry/otlptest"
	"github.com/promptcanary/promptcanary/provider"
)

const (
	apiKey      = "sk-test-0123456789abcdefSECRETKEY"
	headerToken = "otlp-token-9876543210ZYXWVUTSRQ"
	promptText  = "What is the capital of France? PROMPT-MARKER"
	systemText  = "Answer in one word. SYSTEM-MARKER"
	answerText  = "Paris ANSWER-MARKER, and your key is " + apiKey
)

// fake answers the prompt "ok" and fails any other with a 429 whose
// message echoes the API key.
type fake struct{}

func (fake) Generate(_ context.Context, req *provider.Request) (*promptcanary.Response, error) {
	if req.Prompt.ID != "ok" {
		return nil, &provider.Error{StatusCode: 429, Message: "rate limited for key " + apiKey}
	}
	return &promptcanary.Response{Content: answerText, FinishReason: "stop", PromptTokens: 12, CompletionTokens: 3,
		ServedModel: "gpt-4o-2024-08-06", ResponseID: "chatcmpl-42"}, nil
}

// trace runs one traced compare of two calls against r's endpoint.
func trace(t *testing.T, r *otlptest.Receiver, protocol string, content bool) {
	t.Helper()
	secrets := redact.New(apiKey)
	tr, err := telemetry.Start(context.Background(), telemetry.Config{Endpoint: r.Endpoint, Protocol: protocol, Content: content,
		Headers: map[string]string{"authorization": "Bearer " + headerToken}}, telemetry.Options{Secrets: secrets, Version: "v9.9.9"})
	if err != nil || tr == nil {
		t.Fatalf("Start: %v, %v", tr, err)
	}
	ctx, cmd := tr.StartCommand(context.Background(), "compare", "demo")
	rctx, done := tr.StartRun(ctx, "openai/gpt-4o")
	p := tr.Wrap("openai/gpt-4o", fake{})
	cfg := promptcanary.ProviderConfig{ModelID: "openai/gpt-4o", Temperature: 0.2, MaxTokens: 64}
	for _, id := range []string{"ok", "limited"} {
		req := &provider.Request{Prompt: &promptcanary.Prompt{ID: id, Text: promptText, SystemPrompt: systemText}, Config: cfg, Sample: 1}
		_, _ = p.Generate(rctx, req)
	}
	run := &promptcanary.Run{RunID: "run-1", SuiteName: "demo", Samples: 1,
		LLMResponses: []promptcanary.Response{{PromptTokens: 12, CompletionTokens: 3}},
		ProbeResults: []promptcanary.ProbeResult{{Passed: true}, {Passed: false}},
		Errors:       []promptcanary.CallError{{Message: "x"}}}
	done(run, nil)
	cmd.Drift(&promptcanary.DriftReport{ReportID: "rep-1", CurrentRunID: "run-1", BaselineSnapshotID: "base-1", HasDrift: true,
		Severity: promptcanary.SeverityHigh, Provider: cfg,
		Comparisons: []promptcanary.Comparison{{Status: promptcanary.StatusRegression, Regression: true}, {Status: promptcanary.StatusStable}}})
	cmd.End(errors.New("failed with " + apiKey))
	if err := tr.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
}

func TestSpansOverHTTPAndGRPC(t *testing.T) {
	for _, tc := range otlptest.Protocols {
		t.Run(tc.Name, func(t *testing.T) {
			r := tc.New(t)
			trace(t, r, tc.Name, false)
			cmd, run, calls := one(t, r, "promptcanary compare"), one(t, r, "run openai/gpt-4o"), r.Named("chat gpt-4o")
			if len(calls) != 2 {
				t.Fatalf("got %d call spans, want 2", len(calls))
			}
			if cmd.ParentID != "" || run.ParentID != cmd.SpanID || run.TraceID != cmd.TraceID {
				t.Errorf("run span's parent %q, want the command span %q (root)", run.ParentID, cmd.SpanID)
			}
			for _, c := range calls {
				if c.ParentID != run.SpanID || c.Kind != 3 /* CLIENT */ {
					t.Errorf("call span parent %q kind %v, want the run span %q, CLIENT", c.ParentID, c.Kind, run.SpanID)
				}
			}
			ok, failed := calls[0], calls[1]
			if ok.Attrs[telemetry.AttrPromptID] != "ok" {
				ok, failed = failed, ok
			}
			want := map[string]any{
				"gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai", "gen_ai.system": "openai",
				"gen_ai.request.model": "gpt-4o", "gen_ai.request.temperature": 0.2, "gen_ai.request.max_tokens": int64(64),
				"gen_ai.response.model": "gpt-4o-2024-08-06", "gen_ai.response.id": "chatcmpl-42",
				"gen_ai.usage.input_tokens": int64(12), "gen_ai.usage.output_tokens": int64(3),
			}
			for k, v := range want {
				if ok.Attrs[k] != v {
					t.Errorf("%s = %v (%T), want %v", k, ok.Attrs[k], ok.Attrs[k], v)
				}
			}
			if fr, _ := ok.Attrs["gen_ai.response.finish_reasons"].([]any); len(fr) != 1 || fr[0] != "stop" {
				t.Errorf("finish_reasons = %v, want [stop]", ok.Attrs["gen_ai.response.finish_reasons"])
			}
			if failed.Attrs["error.type"] != "429" || !failed.StatusError || !strings.Contains(failed.StatusMsg, redact.Placeholder) {
				t.Errorf("failed call: error.type %v, status %v %q; want 429, an error scrubbed of the key", failed.Attrs["error.type"], failed.StatusError, failed.StatusMsg)
			}
			if run.Attrs[telemetry.AttrRunID] != "run-1" || run.Attrs[telemetry.AttrRunPassRate] != 0.5 || run.Attrs[telemetry.AttrRunErrors] != int64(1) {
				t.Errorf("run span attributes %v", run.Attrs)
			}
			if len(cmd.Events) != 1 || cmd.Events[0].Name != telemetry.EventDrift {
				t.Fatalf("command events %v, want one drift event", cmd.Events)
			}
			ev := cmd.Events[0].Attrs
			if ev[telemetry.AttrSeverity] != "high" || ev[telemetry.AttrRegressions] != int64(1) || ev[telemetry.AttrDriftDetected] != true {
				t.Errorf("drift event %v", ev)
			}
			if cmd.Resource["service.name"] != "promptcanary" || cmd.Resource["service.version"] != "v9.9.9" {
				t.Errorf("resource %v, want service.name promptcanary, service.version v9.9.9", cmd.Resource)
			}
			if h := r.Header("authorization"); len(h) == 0 || h[0] != "Bearer "+headerToken {
				t.Errorf("authorization header %q, want the configured one", h)
			}
			noLeak(t, r, false)
		})
	}
}

// TestContentOptIn exports prompt and answer text only when asked, and
// scrubbed even then.
func TestContentOptIn(t *testing.T) {
	r := otlptest.NewHTTP(t)
	trace(t, r, telemetry.ProtocolHTTP, true)
	var ok otlptest.Span
	for _, c := range r.Named("chat ") {
		if c.Attrs[telemetry.AttrPromptID] == "ok" {
			ok = c
		}
	}
	in, _ := ok.Attrs[telemetry.AttrInputMessages].(string)
	out, _ := ok.Attrs[telemetry.AttrOutputMessages].(string)
	sys, _ := ok.Attrs[telemetry.AttrSystemInstr].(string)
	if !strings.Contains(in, "PROMPT-MARKER") || !strings.Contains(out, "ANSWER-MARKER") || !strings.Contains(sys, "SYSTEM-MARKER") {
		t.Errorf("content not exported: input %q output %q system %q", in, out, sys)
	}
	if !strings.Contains(out, redact.Placeholder) {
		t.Errorf("output %q: the key should be scrubbed to %s", out, redact.Placeholder)
	}
	noLeak(t, r, true)
}

// noLeak fails when any byte sequence received holds a secret (or a run
// of 12 of its bytes), or, without content, the prompt or answer text.
func noLeak(t *testing.T, r *otlptest.Receiver, content bool) {
	t.Helper()
	for _, s := range []string{apiKey, headerToken} {
		for i := 0; i+12 <= len(s); i++ {
			if r.Contains([]byte(s[i : i+12])) {
				t.Fatalf("secret %q leaked into the exported spans (part %q)", s, s[i:i+12])
			}
		}
	}
	if content {
		return
	}
	for _, s := range []string{"PROMPT-MARKER", "ANSWER-MARKER", "SYSTEM-MARKER"} {
		if r.Contains([]byte(s)) {
			t.Errorf("%s exported without content: true", s)
		}
	}
}

// one returns the one span named name.
func one(t *testing.T, r *otlptest.Receiver, name string) otlptest.Span {
	t.Helper()
	var out []otlptest.Span
	for _, s := range r.Spans() {
		if s.Name == name {
			out = append(out, s)
		}
	}
	if len(out) != 1 {
		t.Fatalf("got %d spans named %q, want 1 (all: %v)", len(out), name, r.Names())
	}
	return out[0]
}

// TestNilTracerDoesNothing checks the untraced path: no span, the
// provider itself.
func TestNilTracerDoesNothing(t *testing.T) {
	var tr *telemetry.Tracer
	p := fake{}
	if got := tr.Wrap("openai/gpt-4o", p); got != provider.Provider(p) {
		t.Errorf("nil tracer wrapped the provider: %T", got)
	}
	ctx := context.Background()
	if c, s := tr.StartCommand(ctx, "run", ""); c != ctx || s != nil {
		t.Errorf("nil tracer started a span")
	}
	s := telemetry.From(ctx)
	s.Drift(&promptcanary.DriftReport{})
	s.End(nil)
	if err := tr.Close(); err != nil {
		t.Error(err)
	}
	tr2, err := telemetry.Start(ctx, telemetry.Config{}, telemetry.Options{})
	if tr2 != nil || err != nil {
		t.Errorf("Start without an endpoint: %v, %v; want nil, nil", tr2, err)
	}
}

// TestUnreachableCollector: spans that cannot be delivered are a warning
// from Close, within ShutdownTimeout, never a failure of the work.
func TestUnreachableCollector(t *testing.T) {
	r := otlptest.NewHTTP(t)
	endpoint := strings.Replace(r.Endpoint, "/v1/traces", "/nowhere", 1) // answered 404 at once
	tr, err := telemetry.Start(context.Background(), telemetry.Config{Endpoint: endpoint, Protocol: telemetry.ProtocolHTTP}, telemetry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, s := tr.StartCommand(context.Background(), "run", "")
	s.End(nil)
	start := time.Now()
	err = tr.Close()
	if err == nil || !strings.Contains(err.Error(), "opentelemetry") {
		t.Errorf("Close: %v, want an export failure", err)
	}
	t.Logf("Close took %v (bound %v)", time.Since(start), telemetry.ShutdownTimeout)
}

// TestSilentCollector: a collector that accepts the connection and never
// answers holds Close no longer than its bound, and is reported.
func TestSilentCollector(t *testing.T) {
	hold := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-hold }))
	defer srv.Close()
	defer close(hold)
	tr, err := telemetry.Start(context.Background(), telemetry.Config{Endpoint: srv.URL + "/v1/traces", Protocol: telemetry.ProtocolHTTP},
		telemetry.Options{ShutdownTimeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	_, s := tr.StartCommand(context.Background(), "run", "")
	s.End(nil)
	if err := tr.Close(); err == nil || !strings.Contains(err.Error(), "not exported within 50ms") {
		t.Errorf("Close: %v, want the bound reported", err)
	}
}
