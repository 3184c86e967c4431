// Package telemetry exports traces of runs, compares and monitor checks
// over OTLP (HTTP/protobuf or gRPC) with the OpenTelemetry Go SDK: a span
// per command, per provider run and per monitor check, a child span per
// provider call following the GenAI semantic conventions
// (https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-spans/), and
// drift verdicts and incidents as span events.
//
// Nothing is started unless an endpoint is configured: a nil *Tracer is
// valid and does nothing, so that an untraced run pays nothing. Prompt and
// answer text is never exported unless Config.Content is set, and every
// text that is exported (content, error messages, resource attributes) is
// scrubbed of the run's secrets first.
package telemetry

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// The protocols of the OTLP exporter, as OTEL_EXPORTER_OTLP_PROTOCOL
// names them.
const (
	ProtocolHTTP = "http/protobuf"
	ProtocolGRPC = "grpc"
)

// The environment variables read (see FromEnv). The OTEL_ ones are the
// OpenTelemetry SDK's
// (https://opentelemetry.io/docs/specs/otel/protocol/exporter/).
const (
	EnvEndpoint       = "OTEL_EXPORTER_OTLP_ENDPOINT"
	EnvTracesEndpoint = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
	EnvProtocol       = "OTEL_EXPORTER_OTLP_PROTOCOL"
	EnvTracesProtocol = "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"
	EnvHeaders        = "OTEL_EXPORTER_OTLP_HEADERS"
	EnvTracesHeaders  = "OTEL_EXPORTER_OTLP_TRACES_HEADERS"
	EnvSDKDisabled    = "OTEL_SDK_DISABLED"
	EnvTracesExporter = "OTEL_TRACES_EXPORTER"
	// EnvContent, set to true, exports prompt and answer text (see
	// Config.Content).
	EnvContent = "PROMPTCANARY_OTEL_CONTENT"
)

// tracesPath is the path of the OTLP/HTTP traces endpoint below a base
// endpoint.
const tracesPath = "/v1/traces"

// Config says where traces go. The zero Config exports nothing.
type Config struct {
	// Endpoint is the URL spans are sent to: for http/protobuf the full
	// traces URL (http://collector:4318/v1/traces), for grpc the
	// collector's address (http://collector:4317). An http:// URL sends
	// in clear text, https:// with TLS. "" turns tracing off.
	Endpoint string
	// Protocol is ProtocolHTTP (the default) or ProtocolGRPC.
	Protocol string
	// Headers are sent with every export (an API key of a hosted
	// collector); their values are secrets.
	Headers map[string]string
	// Content exports prompt and answer text (gen_ai.input.messages,
	// gen_ai.output.messages, gen_ai.system_instructions), scrubbed of
	// secrets and bounded; false exports none.
	Content bool
}

// Enabled reports whether c exports anything.
func (c Config) Enabled() bool { return c.Endpoint != "" }

// Secrets returns the values of c that must never be shown: the header
// values and the endpoint's password.
func (c Config) Secrets() []string {
	var out []string
	for _, v := range c.Headers {
		out = append(out, v)
		// "Bearer TOKEN": the token alone, wherever it is quoted.
		if _, tok, ok := strings.Cut(v, " "); ok {
			out = append(out, tok)
		}
	}
	if u, err := url.Parse(c.Endpoint); err == nil && u.User != nil {
		if p, ok := u.User.Password(); ok {
			out = append(out, p)
		}
	}
	return out
}

// FromEnv reads the standard OpenTelemetry exporter variables with getenv:
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (the traces URL as it is) or
// OTEL_EXPORTER_OTLP_ENDPOINT (a base URL, to which http/protobuf appends
// /v1/traces), OTEL_EXPORTER_OTLP_[TRACES_]PROTOCOL and
// OTEL_EXPORTER_OTLP_[TRACES_]HEADERS (key=value,… percent-encoded), and
// PROMPTCANARY_OTEL_CONTENT. OTEL_SDK_DISABLED=true or
// OTEL_TRACES_EXPORTER=none turn tracing off. Errors name the variable,
// never its value.
func FromEnv(getenv func(string) string) (Config, error) {
	var c Config
	if strings.EqualFold(strings.TrimSpace(getenv(EnvSDKDisabled)), "true") ||
		strings.EqualFold(strings.TrimSpace(getenv(EnvTracesExporter)), "none") {
		return c, nil
	}
	c.Protocol = first(getenv(EnvTracesProtocol), getenv(EnvProtocol))
	if err := checkProtocol(c.Protocol); err != nil {
		return Config{}, fmt.Errorf("%s: %w", firstName(getenv, EnvTracesProtocol, EnvProtocol), err)
	}
	if c.Protocol == "" {
		c.Protocol = ProtocolHTTP
	}
	if v := strings.TrimSpace(getenv(EnvTracesEndpoint)); v != "" {
		c.Endpoint = v
	} else if v := strings.TrimSpace(getenv(EnvEndpoint)); v != "" {
		c.Endpoint = BaseEndpoint(v, c.Protocol)
	}
	if c.Endpoint != "" {
		if err := CheckEndpoint(c.Endpoint); err != nil {
			return Config{}, fmt.Errorf("%s: %w", firstName(getenv, EnvTracesEndpoint, EnvEndpoint), err)
		}
	}
	h, err := parseHeaders(first(getenv(EnvTracesHeaders), getenv(EnvHeaders)))
	if err != nil {
		return Config{}, fmt.Errorf("%s: %w", firstName(getenv, EnvTracesHeaders, EnvHeaders), err)
	}
	c.Headers = h
	if v := strings.TrimSpace(getenv(EnvContent)); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return Config{}, fmt.Errorf("%s: want true or false", EnvContent)
		}
		c.Content = b
	}
	return c, nil
}

// BaseEndpoint returns the traces endpoint below a base endpoint, as
// OTEL_EXPORTER_OTLP_ENDPOINT is read: http/protobuf appends /v1/traces,
// grpc takes the address as it is.
func BaseEndpoint(base, protocol string) string {
	if protocol == ProtocolGRPC {
		return base
	}
	return strings.TrimRight(base, "/") + tracesPath
}

// CheckEndpoint reports whether u is an http:// or https:// URL with a
// host. The error never quotes u (it may hold a password).
func CheckEndpoint(u string) error {
	p, err := url.Parse(u)
	if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
		return fmt.Errorf("not an http:// or https:// URL with a host")
	}
	return nil
}

// checkProtocol accepts "", http/protobuf and grpc.
func checkProtocol(p string) error {
	switch p {
	case "", ProtocolHTTP, ProtocolGRPC:
		return nil
	case "http/json":
		return fmt.Errorf("http/json is not supported: use %s or %s", ProtocolHTTP, ProtocolGRPC)
	}
	return fmt.Errorf("unknown protocol %q: use %s or %s", p, ProtocolHTTP, ProtocolGRPC)
}

// CheckProtocol reports whether p names a supported protocol.
func CheckProtocol(p string) error {
	if p == "" {
		return fmt.Errorf("empty protocol: use %s or %s", ProtocolHTTP, ProtocolGRPC)
	}
	return checkProtocol(p)
}

// parseHeaders reads key=value pairs separated by commas, values
// percent-decoded, as the OTLP exporter specification writes them. Errors
// never quote a value.
func parseHeaders(s string) (map[string]string, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	out := map[string]string{}
	for i, part := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(part, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, fmt.Errorf("header %d is not key=value", i+1)
		}
		dv, err := url.PathUnescape(strings.TrimSpace(v))
		if err != nil {
			return nil, fmt.Errorf("header %q: invalid percent-encoding", k)
		}
		out[k] = dv
	}
	return out, nil
}

// first returns the first of vs that is not blank, trimmed.
func first(vs ...string) string {
	for _, v := range vs {
		if v = strings.TrimSpace(v); v != "" {
			return v
		}
	}
	return ""
}

// firstName returns the first of names that getenv finds set.
func firstName(getenv func(string) string, names ...string) string {
	for _, n := range names {
		if strings.TrimSpace(getenv(n)) != "" {
			return n
		}
	}
	return names[len(names)-1]
}
