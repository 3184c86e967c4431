package telemetry_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/cputime"
	"github.com/promptcanary/promptcanary/internal/redact"
	"github.com/promptcanary/promptcanary/internal/telemetry"
	"github.com/promptcanary/promptcanary/internal/telemetry/otlptest"
	_ "github.com/promptcanary/promptcanary/probe/builtin"
	"github.com/promptcanary/promptcanary/provider"
	_ "github.com/promptcanary/promptcanary/provider/sim"
	"github.com/promptcanary/promptcanary/runner"
	"github.com/promptcanary/promptcanary/suite"
)

// BenchmarkRun measures one run of 8 prompts × 5 samples on the offline
// sim provider untraced (off: the nil Tracer the CLI has when nothing is
// configured), traced to a loopback OTLP receiver (http, grpc), and
// traced with content on, and traced to a collector that discards what it
// gets (the exporter's cost without the test receiver's decoding). Spans
// are exported in the background by the batch processor; Close flushes
// what is left once, after the loop. cpu-ns/op is the CPU time of the
// whole process (receiver included) per run: on a shared machine it is
// steadier than ns/op.
func BenchmarkRun(b *testing.B) {
	dir := b.TempDir()
	var yaml strings.Builder
	yaml.WriteString("name: bench\nprobes: [direct_answer, json_validity]\nprompts:\n")
	for _, id := range []string{"a", "b", "c", "d", "e", "f", "g", "h"} {
		yaml.WriteString("  - {id: " + id + ", text: \"Reply with a JSON object describing " + id + "\"}\n")
	}
	path := filepath.Join(dir, "canary.yaml")
	if err := os.WriteFile(path, []byte(yaml.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	st, err := suite.Load(path)
	if err != nil {
		b.Fatal(err)
	}
	cfg := promptcanary.ProviderConfig{ModelID: "sim/stable", MaxTokens: 256}
	for _, tc := range []struct {
		name     string
		protocol string
		content  bool
	}{{"off", "", false}, {"http", telemetry.ProtocolHTTP, false}, {"grpc", telemetry.ProtocolGRPC, false}, {"http+content", telemetry.ProtocolHTTP, true},
		{"discard", "discard", false}} {
		b.Run(tc.name, func(b *testing.B) {
			var tr *telemetry.Tracer
			if tc.protocol != "" {
				endpoint, protocol := "", tc.protocol
				switch protocol {
				case telemetry.ProtocolGRPC:
					endpoint = otlptest.NewGRPC(b).Endpoint
				case "discard":
					// What the exporter costs alone: a collector that
					// answers at once and decodes nothing.
					srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
						_, _ = io.Copy(io.Discard, r.Body)
						w.Header().Set("Content-Type", "application/x-protobuf")
					}))
					b.Cleanup(srv.Close)
					endpoint, protocol = srv.URL+"/v1/traces", telemetry.ProtocolHTTP
				default:
					endpoint = otlptest.NewHTTP(b).Endpoint
				}
				tr, err = telemetry.Start(context.Background(), telemetry.Config{Endpoint: endpoint, Protocol: protocol, Content: tc.content},
					telemetry.Options{Secrets: redact.New("sk-bench-secret-0123456789")})
				if err != nil {
					b.Fatal(err)
				}
			}
			p, err := provider.Open(cfg.ModelID, provider.Options{})
			if err != nil {
				b.Fatal(err)
			}
			p = tr.Wrap(cfg.ModelID, p)
			plan := st.Plan(cfg, 5)
			b.ReportAllocs()
			cpu := cputime.Process()
			for b.Loop() {
				ctx, done := tr.StartRun(context.Background(), cfg.ModelID)
				run, err := runner.Execute(ctx, plan, p, runner.Options{})
				done(run, err)
				if err != nil || len(run.LLMResponses) != 40 {
					b.Fatalf("run: %v, %d answers", err, len(run.LLMResponses))
				}
			}
			if err := tr.Close(); err != nil { // the last export counts too
				b.Fatal(err)
			}
			b.StopTimer()
			b.ReportMetric(float64(cputime.Process()-cpu)/float64(b.N), "cpu-ns/op")
		})
	}
}
