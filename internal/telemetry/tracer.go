package telemetry

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/promptcanary/promptcanary/internal/redact"
)

// DefaultServiceName is service.name when neither OTEL_SERVICE_NAME nor
// OTEL_RESOURCE_ATTRIBUTES names one.
const DefaultServiceName = "promptcanary"

// ShutdownTimeout bounds how long Close waits for the last spans to be
// exported: an unreachable collector delays the end of a command by at
// most this.
const ShutdownTimeout = 2 * time.Second

// Bounds of the exporter: an export attempt, its retries, and the spans
// queued while the collector is slow (the oldest are dropped past it).
const (
	exportTimeout = 5 * time.Second
	retryElapsed  = 10 * time.Second
	maxQueue      = 4096
	batchTimeout  = 2 * time.Second
)

// instrumentation is the scope name of the spans.
const instrumentation = "github.com/promptcanary/promptcanary"

// Options tune a Tracer.
type Options struct {
	// Secrets are scrubbed from every text the tracer exports and from
	// the export errors it reports. Nil scrubs nothing.
	Secrets *redact.Set
	// Version is service.version ("" leaves it out).
	Version string
	// OnError, when set, is told of export failures (scrubbed), at most
	// once a minute; Close reports them as well.
	OnError func(error)
	// ShutdownTimeout bounds Close; 0 means ShutdownTimeout.
	ShutdownTimeout time.Duration
}

// Tracer makes the spans of runs, checks and provider calls. A nil
// *Tracer is valid: it makes no span and wraps nothing.
type Tracer struct {
	tp      *sdktrace.TracerProvider
	tr      trace.Tracer
	secrets *redact.Set
	content bool
	onError func(error)
	bound   time.Duration

	mu       sync.Mutex
	failures int
	firstErr error
	lastSaid time.Time
	closed   bool
}

// active is the tracer the SDK's global error handler reports to (the
// SDK has no per-provider handler).
var (
	active      atomic.Pointer[Tracer]
	handlerOnce sync.Once
)

// Start starts exporting spans as c says, nil when c exports nothing. The
// resource is service.name "promptcanary" (or OTEL_SERVICE_NAME), with
// OTEL_RESOURCE_ATTRIBUTES, scrubbed of secrets. Nothing is sent before
// the first spans end; a collector that cannot be reached never fails a
// run (see Close).
func Start(ctx context.Context, c Config, o Options) (*Tracer, error) {
	if !c.Enabled() {
		return nil, nil
	}
	o.Secrets.Add(c.Secrets()...)
	exp, err := exporter(ctx, c)
	if err != nil {
		return nil, fmt.Errorf("opentelemetry exporter: %s", o.Secrets.String(err.Error()))
	}
	res, err := newResource(ctx, o)
	if err != nil {
		return nil, err
	}
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithResource(res),
		sdktrace.WithBatcher(exp, sdktrace.WithBatchTimeout(batchTimeout), sdktrace.WithMaxQueueSize(maxQueue),
			sdktrace.WithExportTimeout(exportTimeout+time.Second)),
	)
	t := &Tracer{tp: tp, tr: tp.Tracer(instrumentation), secrets: o.Secrets, content: c.Content, onError: o.OnError,
		bound: cmp.Or(o.ShutdownTimeout, ShutdownTimeout)}
	handlerOnce.Do(func() {
		// The SDK's own log lines go to os.Stderr past the scrubber and
		// may quote a variable's value (a header): none are printed. Its
		// errors reach the handler below, which scrubs them.
		otel.SetLogger(logr.Discard())
		otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
			if t := active.Load(); t != nil {
				t.failed(err)
			}
		}))
	})
	active.Store(t)
	return t, nil
}

// exporter returns the OTLP exporter of c's protocol, bounded in time.
func exporter(ctx context.Context, c Config) (sdktrace.SpanExporter, error) {
	if c.Protocol == ProtocolGRPC {
		return otlptracegrpc.New(ctx, otlptracegrpc.WithEndpointURL(c.Endpoint), otlptracegrpc.WithHeaders(c.Headers),
			otlptracegrpc.WithTimeout(exportTimeout),
			otlptracegrpc.WithRetry(otlptracegrpc.RetryConfig{Enabled: true, InitialInterval: 500 * time.Millisecond, MaxInterval: 2 * time.Second, MaxElapsedTime: retryElapsed}))
	}
	return otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(c.Endpoint), otlptracehttp.WithHeaders(c.Headers),
		otlptracehttp.WithTimeout(exportTimeout),
		otlptracehttp.WithRetry(otlptracehttp.RetryConfig{Enabled: true, InitialInterval: 500 * time.Millisecond, MaxInterval: 2 * time.Second, MaxElapsedTime: retryElapsed}))
}

// newResource is the SDK's resource (telemetry.sdk.*, OTEL_SERVICE_NAME,
// OTEL_RESOURCE_ATTRIBUTES) over promptcanary's defaults, with every
// string value scrubbed of secrets.
func newResource(ctx context.Context, o Options) (*resource.Resource, error) {
	base := []attribute.KeyValue{attribute.String("service.name", DefaultServiceName)}
	if o.Version != "" {
		base = append(base, attribute.String("service.version", o.Version))
	}
	detected, err := resource.New(ctx, resource.WithFromEnv(), resource.WithTelemetrySDK())
	if err != nil && detected == nil {
		return nil, fmt.Errorf("opentelemetry resource (OTEL_RESOURCE_ATTRIBUTES): %s", o.Secrets.String(err.Error()))
	}
	merged, err := resource.Merge(resource.NewSchemaless(base...), detected)
	if err != nil {
		merged = resource.NewSchemaless(append(base, detected.Attributes()...)...)
	}
	attrs := merged.Attributes()
	for i, kv := range attrs {
		if kv.Value.Type() == attribute.STRING {
			attrs[i] = attribute.String(string(kv.Key), o.Secrets.String(kv.Value.AsString()))
		}
	}
	return resource.NewWithAttributes(merged.SchemaURL(), attrs...), nil
}

// failed records an export failure and tells OnError, at most once a
// minute.
func (t *Tracer) failed(err error) {
	err = errors.New(t.secrets.String(err.Error()))
	t.mu.Lock()
	if t.closed && t.firstErr != nil {
		t.mu.Unlock()
		return
	}
	t.failures++
	if t.firstErr == nil {
		t.firstErr = err
	}
	say := t.onError != nil && time.Since(t.lastSaid) >= time.Minute
	if say {
		t.lastSaid = time.Now()
	}
	t.mu.Unlock()
	if say {
		t.onError(err)
	}
}

// Close exports the spans still queued and stops the tracer, waiting at
// most Options.ShutdownTimeout. It returns an error when spans could not be
// exported (the collector is unreachable, say), for a warning: it never
// means the run failed. Close on nil does nothing.
func (t *Tracer) Close() error {
	if t == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), t.bound)
	defer cancel()
	ferr := t.tp.ForceFlush(ctx)
	serr := t.tp.Shutdown(ctx)
	active.CompareAndSwap(t, nil)
	t.mu.Lock()
	defer t.mu.Unlock()
	t.closed = true
	switch {
	case t.firstErr != nil:
		return fmt.Errorf("opentelemetry: %d export(s) failed, traces may be incomplete: %w", t.failures, t.firstErr)
	case errors.Is(ferr, context.DeadlineExceeded) || errors.Is(serr, context.DeadlineExceeded):
		return fmt.Errorf("opentelemetry: traces not exported within %v, traces may be incomplete", t.bound)
	case ferr != nil || serr != nil:
		return fmt.Errorf("opentelemetry: traces not exported: %s", t.secrets.String(firstLine(errors.Join(ferr, serr).Error())))
	}
	return nil
}

// firstLine is s up to its first line break.
func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
