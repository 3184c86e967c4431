package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary/internal/telemetry"
	"github.com/promptcanary/promptcanary/internal/telemetry/otlptest"
)

// mainIn runs the command line in dir and returns its exit code and
// stderr.
func mainIn(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Main(context.Background(), args, Stdio{In: strings.NewReader(""), Out: &out, Err: &errOut})
	return code, errOut.String()
}

// otelEnv points the exporter at r over protocol, as a user would: the
// base endpoint for HTTP, the address for gRPC.
func otelEnv(t *testing.T, r *otlptest.Receiver, protocol string) {
	t.Setenv(telemetry.EnvEndpoint, strings.TrimSuffix(r.Endpoint, "/v1/traces"))
	t.Setenv(telemetry.EnvProtocol, protocol)
	t.Setenv(telemetry.EnvTracesEndpoint, "")
	t.Setenv(telemetry.EnvContent, "")
}

// TestOTelRunAndCompare runs the quick start on the offline sim provider
// with OTEL_EXPORTER_OTLP_ENDPOINT set, over both protocols, and checks
// the spans that reach the receiver: one per command, per run and per
// call, the calls' GenAI attributes, and the compare's drift verdict.
func TestOTelRunAndCompare(t *testing.T) {
	for _, tc := range otlptest.Protocols {
		t.Run(tc.Name, func(t *testing.T) {
			dir := t.TempDir()
			t.Chdir(dir)
			if code, stderr := mainIn(t, "init", "demo"); code != 0 {
				t.Fatalf("init: exit %d: %s", code, stderr)
			}
			t.Chdir(filepath.Join(dir, "demo"))
			r := tc.New(t)
			otelEnv(t, r, tc.Name)
			t.Setenv("OTEL_SERVICE_NAME", "canary-ci")
			if code, stderr := mainIn(t, "run", "-p", "sim/stable", "--save-baseline", "--no-progress"); code != 0 {
				t.Fatalf("run: exit %d: %s", code, stderr)
			}
			if code, stderr := mainIn(t, "compare", "-p", "sim/drifted", "--baseline-provider", "sim/stable", "--no-progress", "--fail-on-drift"); code != int(ExitGate) {
				t.Fatalf("compare: exit %d, want 1 (drift): %s", code, stderr)
			}
			byID := map[string]otlptest.Span{}
			for _, s := range r.Spans() {
				byID[s.SpanID] = s
			}
			cmds := map[string]otlptest.Span{}
			for _, s := range r.Spans() {
				if strings.HasPrefix(s.Name, "promptcanary ") {
					cmds[s.Name] = s
					if s.ParentID != "" || s.StatusError {
						t.Errorf("%s: parent %q error %v, want a root span without error (drift is a verdict)", s.Name, s.ParentID, s.StatusError)
					}
				}
			}
			if len(cmds) != 2 {
				t.Fatalf("command spans %v, want promptcanary run and promptcanary compare", r.Names())
			}
			calls := r.Named("chat ")
			want := int64(0)
			for _, s := range r.Named("run sim/") {
				want += s.Attrs[telemetry.AttrRunAnswers].(int64) + s.Attrs[telemetry.AttrRunErrors].(int64)
				if byID[s.ParentID].Name != "promptcanary run" && byID[s.ParentID].Name != "promptcanary compare" {
					t.Errorf("run span %s: parent %q, want a command span", s.Name, byID[s.ParentID].Name)
				}
				if s.Attrs[telemetry.AttrSuite] != "demo" || s.Attrs[telemetry.AttrRunID] == "" {
					t.Errorf("run span %s attributes %v", s.Name, s.Attrs)
				}
			}
			if len(calls) == 0 || int64(len(calls)) != want { // sim answers at the first attempt
				t.Errorf("got %d call spans, want one per call of the runs (%d)", len(calls), want)
			}
			for _, c := range calls {
				if p := byID[c.ParentID]; !strings.HasPrefix(p.Name, "run sim/") {
					t.Fatalf("call %s: parent %q, want a run span", c.Name, p.Name)
				}
				if c.Attrs["gen_ai.operation.name"] != "chat" || c.Attrs["gen_ai.provider.name"] != "sim" ||
					c.Name != "chat "+c.Attrs["gen_ai.request.model"].(string) || c.Attrs["gen_ai.usage.output_tokens"] == nil {
					t.Errorf("call %s attributes %v", c.Name, c.Attrs)
				}
				if c.Resource["service.name"] != "canary-ci" {
					t.Errorf("service.name %v, want OTEL_SERVICE_NAME's canary-ci", c.Resource["service.name"])
				}
			}
			ev := cmds["promptcanary compare"].Events
			if len(ev) != 1 || ev[0].Name != telemetry.EventDrift || ev[0].Attrs[telemetry.AttrDriftDetected] != true ||
				ev[0].Attrs[telemetry.AttrRegressions].(int64) < 1 || ev[0].Attrs[telemetry.AttrSeverity] == "" {
				t.Errorf("compare events %v, want one drift event with regressions", ev)
			}
		})
	}
}

// TestOTelNoSecretLeaks runs against an OpenAI-compatible server that
// echoes the API key in its answers and errors, with a token in the
// exporter's headers and the resource, and checks that neither reaches
// the spans; and that prompt and answer text are exported only with
// PROMPTCANARY_OTEL_CONTENT=true, scrubbed.
func TestOTelNoSecretLeaks(t *testing.T) {
	const key = "sk-test-0123456789abcdefOTELSECRET"
	const token = "otlp-header-token-0123456789abcdef"
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n++
		w.Header().Set("Content-Type", "application/json")
		if n%2 == 0 {
			w.WriteHeader(401)
			w.Write([]byte(`{"error":{"message":"Incorrect API key provided: ` + key + `","type":"invalid_request_error","code":"invalid_api_key"}}`))
			return
		}
		w.Write([]byte(`{"id":"chatcmpl-1","object":"chat.completion","model":"gpt-4o-mini-2024-07-18",
			"choices":[{"index":0,"message":{"role":"assistant","content":"Paris ANSWER-MARK, your key is ` + key + `"},"finish_reason":"stop"}],
			"usage":{"prompt_tokens":9,"completion_tokens":5,"total_tokens":14}}`))
	}))
	defer srv.Close()
	for _, content := range []bool{false, true} {
		t.Run("content="+map[bool]string{false: "off", true: "on"}[content], func(t *testing.T) {
			r := otlptest.NewHTTP(t)
			otelEnv(t, r, telemetry.ProtocolHTTP)
			t.Setenv(telemetry.EnvHeaders, "authorization=Bearer%20"+token)
			t.Setenv("OTEL_RESOURCE_ATTRIBUTES", "deployment.environment=ci,leak.token="+token)
			if content {
				t.Setenv(telemetry.EnvContent, "true")
			}
			t.Setenv("OPENAI_API_KEY", key)
			dir := t.TempDir()
			config := filepath.Join(dir, "canary.yaml")
			os.WriteFile(config, []byte("name: secrets\nprobes: [direct_answer]\nprompts:\n  - {id: q, text: \"PROMPT-MARK capital of France?\"}\n  - {id: r, text: \"PROMPT-MARK capital of Spain?\"}\n"), 0o644)
			code, stderr := mainIn(t, "run", "-c", config, "-p", "openai/gpt-4o-mini", "--base-url", srv.URL+"/v1",
				"--retries", "0", "--no-progress", "--store", filepath.Join(dir, "history.db"))
			if code != int(ExitOK) && code != int(ExitUnmeasured) {
				t.Fatalf("run: exit %d: %s", code, stderr)
			}
			if got := r.Header("authorization"); len(got) == 0 || got[0] != "Bearer "+token {
				t.Errorf("the exporter sent authorization %q, want the configured header", got)
			}
			var failed bool
			for _, c := range r.Named("chat ") {
				failed = failed || c.Attrs["error.type"] == "401"
			}
			if !failed {
				t.Errorf("no call span with error.type 401: %v", r.Named("chat "))
			}
			for _, s := range []string{key, token} {
				for i := 0; i+12 <= len(s); i++ {
					if r.Contains([]byte(s[i : i+12])) {
						t.Fatalf("%q of a secret reached the exported spans", s[i:i+12])
					}
				}
			}
			for _, mark := range []string{"PROMPT-MARK", "ANSWER-MARK"} {
				if got := r.Contains([]byte(mark)); got != content {
					t.Errorf("%s exported: %v, want %v (content %v)", mark, got, content, content)
				}
			}
		})
	}
}

// TestOTelServeOnce runs the monitor's checks once with otel: in
// monitor.yaml (gRPC, endpoint and token from the environment): each
// check run is a root span with its runs and calls below it, and the
// drifted check's span carries the drift verdicts and the incident it
// opened as events.
func TestOTelServeOnce(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if code, stderr := mainIn(t, "init", "--monitor", "s"); code != 0 {
		t.Fatalf("init: exit %d: %s", code, stderr)
	}
	t.Chdir(filepath.Join(dir, "s"))
	if code, stderr := mainIn(t, "run", "--save-baseline", "--no-progress", "-o", "base.json"); code != 0 {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	data, _ := os.ReadFile("base.json")
	var base struct {
		RunID string `json:"run_id"`
	}
	if err := json.Unmarshal(data, &base); err != nil || base.RunID == "" {
		t.Fatalf("base.json: %v", err)
	}
	const token = "otlp-monitor-token-0123456789"
	r := otlptest.NewGRPC(t)
	t.Setenv(telemetry.EnvEndpoint, "")
	t.Setenv("OTLP_ENDPOINT", r.Endpoint)
	t.Setenv("OTLP_TOKEN", token)
	os.WriteFile("monitor.yaml", []byte(`checks:
  - {name: canary, suite: canary.yaml, provider: sim/stable}
  - {name: drifted, suite: canary.yaml, provider: sim/drifted, baseline: `+base.RunID+`}
otel:
  endpoint: "${OTLP_ENDPOINT}"
  protocol: grpc
  headers: {authorization: "Bearer ${OTLP_TOKEN}"}
`), 0o644)
	if code, stderr := mainIn(t, "serve", "--once"); code != int(ExitGate) {
		t.Fatalf("serve --once: exit %d, want 1 (incident open): %s", code, stderr)
	}
	if got := r.Header("authorization"); len(got) == 0 || got[0] != "Bearer "+token {
		t.Errorf("authorization %q, want the header of otel:", got)
	}
	byID := map[string]otlptest.Span{}
	for _, s := range r.Spans() {
		byID[s.SpanID] = s
	}
	checks := map[string]otlptest.Span{}
	for _, s := range r.Named("check ") {
		checks[s.Name] = s
		if s.ParentID != "" {
			t.Errorf("%s has a parent, want a root span", s.Name)
		}
	}
	clean, drifted := checks["check canary"], checks["check drifted"]
	if clean.Attrs[telemetry.AttrCheckOutcome] != "clean" || drifted.Attrs[telemetry.AttrCheckOutcome] != "drift" ||
		drifted.Attrs[telemetry.AttrCheckConfirmed] != true || drifted.Attrs[telemetry.AttrSeverity] == "" {
		t.Fatalf("check spans %v, %v: want clean and a confirmed drift", clean.Attrs, drifted.Attrs)
	}
	var drifts, opened int
	for _, e := range drifted.Events {
		switch {
		case e.Name == telemetry.EventDrift && e.Attrs[telemetry.AttrDriftDetected] == true:
			drifts++
		case e.Name == telemetry.EventIncident && e.Attrs[telemetry.AttrIncidentState] == "opened" && e.Attrs[telemetry.AttrIncidentID] != "":
			opened++
		}
	}
	if drifts != 2 || opened != 1 {
		t.Errorf("drifted check events %v: want 2 drift verdicts (run and confirmation) and 1 incident opened", drifted.Events)
	}
	if len(r.Named("chat ")) == 0 {
		t.Fatalf("no call spans: %v", r.Names())
	}
	for _, c := range r.Named("chat ") {
		run := byID[c.ParentID]
		if !strings.HasPrefix(run.Name, "run sim/") || !strings.HasPrefix(byID[run.ParentID].Name, "check ") {
			t.Fatalf("call %s under %q under %q, want a run under a check", c.Name, run.Name, byID[run.ParentID].Name)
		}
	}
	if r.Contains([]byte(token[:12])) {
		t.Errorf("the header token reached the spans")
	}
}
