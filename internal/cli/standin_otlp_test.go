package cli

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/promptcanary/promptcanary/internal/telemetry"
	"github.com/promptcanary/promptcanary/internal/telemetry/otlptest"
)

// standin otlp [grpc] starts a local OTLP receiver (otlptest: as strict
// as a collector), points OTEL_EXPORTER_OTLP_ENDPOINT at it, and after
// every export writes what it received to $WORK/otlp-spans.txt, one line
// per span and per event, for transcripts to grep:
//
//	span "chat stable" parent="run sim/stable" gen_ai.operation.name=chat …
//	event promptcanary.drift in "promptcanary compare" promptcanary.drift.detected=true …
func init() {
	standins["otlp"] = func(ts *testscript.TestScript, args []string) {
		var r *otlptest.Receiver
		protocol := telemetry.ProtocolHTTP
		if len(args) > 0 && args[0] == "grpc" {
			protocol = telemetry.ProtocolGRPC
		}
		tb := &scriptTB{ts: ts}
		if protocol == telemetry.ProtocolGRPC {
			r = otlptest.NewGRPC(tb)
		} else {
			r = otlptest.NewHTTP(tb)
		}
		out := ts.MkAbs("otlp-spans.txt")
		r.OnExport(func() { _ = os.WriteFile(out, []byte(spanLines(r.Spans())), 0o644) })
		ts.Setenv(telemetry.EnvEndpoint, strings.TrimSuffix(r.Endpoint, "/v1/traces"))
		ts.Setenv(telemetry.EnvProtocol, protocol)
	}
}

// spanLines renders spans and their events one per line, attributes
// sorted.
func spanLines(spans []otlptest.Span) string {
	name := map[string]string{}
	for _, s := range spans {
		name[s.SpanID] = s.Name
	}
	var b strings.Builder
	for _, s := range spans {
		parent := "root"
		if s.ParentID != "" {
			parent = fmt.Sprintf("parent=%q", name[s.ParentID])
		}
		fmt.Fprintf(&b, "span %q %s%s\n", s.Name, parent, attrLine(s.Attrs))
		for _, e := range s.Events {
			fmt.Fprintf(&b, "event %s in %q%s\n", e.Name, s.Name, attrLine(e.Attrs))
		}
	}
	return b.String()
}

// attrLine renders attributes as " k=v", sorted by key.
func attrLine(attrs map[string]any) string {
	keys := make([]string, 0, len(attrs))
	for k := range attrs {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, " %s=%v", k, attrs[k])
	}
	return b.String()
}

// scriptTB is the part of testing.TB the receivers use, over a script:
// cleanups run when the script ends.
type scriptTB struct {
	testing.TB
	ts *testscript.TestScript
}

func (s *scriptTB) Cleanup(f func())             { s.ts.Defer(f) }
func (s *scriptTB) Fatal(args ...any)            { s.ts.Fatalf("%s", fmt.Sprint(args...)) }
func (s *scriptTB) Fatalf(f string, args ...any) { s.ts.Fatalf(f, args...) }
func (s *scriptTB) Helper()                      {}
