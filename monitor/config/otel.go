package config

import (
	"fmt"
	"net/url"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/promptcanary/promptcanary/internal/telemetry"
	"github.com/promptcanary/promptcanary/internal/yamlwalk"
)

// OTel is where the monitor's traces go: otel: in monitor.yaml. A key left
// out keeps what the standard OpenTelemetry variables
// (OTEL_EXPORTER_OTLP_ENDPOINT, …) say; see Apply.
type OTel struct {
	// Set is whether monitor.yaml has otel:.
	Set bool
	// Endpoint is the collector's OTLP address, as OTEL_EXPORTER_OTLP_ENDPOINT
	// (http/protobuf appends /v1/traces unless the path already ends so).
	Endpoint string
	// Protocol is http/protobuf or grpc; "" keeps the environment's.
	Protocol string
	// Headers are sent with every export; their values come from the
	// environment and are secrets.
	Headers map[string]string
	// Content, when not nil, says whether prompt and answer text is
	// exported (false by default).
	Content *bool
	// Line is otel:'s line in monitor.yaml.
	Line int
}

// otelKeys are the keys of otel:.
var otelKeys = []string{"endpoint", "protocol", "headers", "content"}

// otelEndpointHint says what an endpoint looks like.
const otelEndpointHint = "write the collector's OTLP address, for example http://otel-collector:4318 (http/protobuf) or http://otel-collector:4317 (protocol: grpc); https:// for TLS"

// otel validates otel:.
func (l *loader) otel(n *yaml.Node) OTel {
	o := OTel{Set: true, Line: n.Line}
	for _, e := range l.Mapping(n, "otel", "write otel: {endpoint: http://otel-collector:4318}") {
		f := yamlwalk.Join("otel", e.Key.Value)
		switch e.Key.Value {
		case "endpoint":
			if s, ok := l.str(e.Val, f); ok {
				l.keep(s) // a URL from the environment may hold a password
				if telemetry.CheckEndpoint(s.val) != nil {
					l.add(e.Val, f, "not an http:// or https:// URL with a host", otelEndpointHint)
				} else {
					o.Endpoint = s.val
				}
			}
		case "protocol":
			if s, ok := l.str(e.Val, f); ok {
				if telemetry.CheckProtocol(s.val) != nil {
					l.add(e.Val, f, fmt.Sprintf("unknown protocol %q", s.val), "one of: "+telemetry.ProtocolHTTP+", "+telemetry.ProtocolGRPC)
				} else {
					o.Protocol = s.val
				}
			}
		case "headers":
			o.Headers = l.otelHeaders(e.Val, f)
		case "content":
			o.Content = l.boolean(e.Val, f)
		default:
			l.UnknownKey(e.Key, "otel", otelKeys)
		}
	}
	return o
}

// otelHeaders validates otel.headers: a mapping of header names to values
// that come from the environment (they are credentials).
func (l *loader) otelHeaders(n *yaml.Node, field string) map[string]string {
	out := map[string]string{}
	for _, e := range l.Mapping(n, field, `write headers: {authorization: "Bearer ${OTLP_TOKEN}"}`) {
		f := yamlwalk.Join(field, e.Key.Value)
		if !validHeaderName(e.Key.Value) {
			l.add(e.Key, f, fmt.Sprintf("invalid header name %q", e.Key.Value), "use letters, digits and '-', for example authorization or x-api-key")
			continue
		}
		env := "OTLP_" + strings.ToUpper(strings.ReplaceAll(e.Key.Value, "-", "_"))
		if s, ok := l.secret(e.Val, f, env); ok {
			out[strings.ToLower(e.Key.Value)] = s.val
		}
	}
	return out
}

// validHeaderName reports whether s is an HTTP header name that gRPC
// metadata takes too (no upper case needed: names are lowered).
func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return false
		}
	}
	return true
}

// Apply returns env (the configuration the OpenTelemetry variables give,
// telemetry.FromEnv) with what otel: sets instead.
func (o OTel) Apply(env telemetry.Config) telemetry.Config {
	if !o.Set {
		return env
	}
	c := env
	if o.Protocol != "" {
		c.Protocol = o.Protocol
	}
	if c.Protocol == "" {
		c.Protocol = telemetry.ProtocolHTTP
	}
	if o.Endpoint != "" {
		c.Endpoint = o.Endpoint
		if u, err := url.Parse(o.Endpoint); err == nil && !strings.HasSuffix(strings.TrimRight(u.Path, "/"), "/v1/traces") {
			c.Endpoint = telemetry.BaseEndpoint(o.Endpoint, c.Protocol)
		}
	}
	if len(o.Headers) > 0 {
		c.Headers = o.Headers
	}
	if o.Content != nil {
		c.Content = *o.Content
	}
	return c
}
