// Package otlptest is an OTLP trace receiver for tests, over HTTP/protobuf
// and gRPC on loopback, as strict as a collector's: it decodes every
// export request and keeps the spans, with their resource, raw bytes and
// request headers, for the test to judge.
package otlptest

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	common "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"github.com/promptcanary/promptcanary/internal/telemetry"
)

// maxBody bounds an export request's body, as a collector's
// max_request_body_size does (20 MiB by default).
const maxBody = 20 << 20

// Span is one received span, flattened for assertions.
type Span struct {
	Name     string
	TraceID  string
	SpanID   string
	ParentID string // "" for a root span
	Kind     tracepb.Span_SpanKind
	Attrs    map[string]any
	Events   []Event
	// StatusError is set when the span's status is Error, with its
	// message.
	StatusError bool
	StatusMsg   string
	// Resource holds the attributes of the span's resource.
	Resource map[string]any
}

// Event is one span event.
type Event struct {
	Name  string
	Attrs map[string]any
}

// Receiver keeps what it received.
type Receiver struct {
	// Endpoint is what to configure the exporter with: the traces URL for
	// HTTP, http://ADDR for gRPC.
	Endpoint string

	mu       sync.Mutex
	onExport func()
	spans    []Span
	raw      [][]byte
	headers  []map[string][]string
}

// Protocols are the OTLP protocols, by the names telemetry.Config takes,
// each with the receiver that speaks it: a test runs over each.
var Protocols = []struct {
	Name string
	New  func(testing.TB) *Receiver
}{{telemetry.ProtocolHTTP, NewHTTP}, {telemetry.ProtocolGRPC, NewGRPC}}

// NewHTTP starts an OTLP/HTTP receiver: POST /v1/traces with a body of
// Content-Type application/x-protobuf (gzip Content-Encoding allowed),
// answered with an ExportTraceServiceResponse; anything else is refused
// as a collector refuses it (404, 405, 415, 400), per
// https://opentelemetry.io/docs/specs/otlp/#otlphttp.
func NewHTTP(t testing.TB) *Receiver {
	r := &Receiver{}
	srv := httptest.NewServer(http.HandlerFunc(r.serveHTTP))
	t.Cleanup(srv.Close)
	r.Endpoint = srv.URL + "/v1/traces"
	return r
}

func (r *Receiver) serveHTTP(w http.ResponseWriter, req *http.Request) {
	switch {
	case req.URL.Path != "/v1/traces":
		http.Error(w, "404 page not found", http.StatusNotFound)
		return
	case req.Method != http.MethodPost:
		http.Error(w, "405 method not allowed, supported: [POST]", http.StatusMethodNotAllowed)
		return
	case req.Header.Get("Content-Type") != "application/x-protobuf":
		// application/json is OTLP too, but our exporter sends protobuf.
		http.Error(w, "415 unsupported media type, supported: [application/x-protobuf]", http.StatusUnsupportedMediaType)
		return
	}
	var body io.Reader = io.LimitReader(req.Body, maxBody+1)
	switch req.Header.Get("Content-Encoding") {
	case "":
	case "gzip":
		zr, err := gzip.NewReader(body)
		if err != nil {
			http.Error(w, "bad gzip body", http.StatusBadRequest)
			return
		}
		body = io.LimitReader(zr, maxBody+1)
	default:
		http.Error(w, "unsupported Content-Encoding", http.StatusBadRequest)
		return
	}
	data, err := io.ReadAll(body)
	if err != nil || len(data) > maxBody {
		http.Error(w, "body too large or unreadable", http.StatusBadRequest)
		return
	}
	if err := r.keep(data, req.Header); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	out, _ := proto.Marshal(&coltrace.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.Write(out)
}

// NewGRPC starts an OTLP/gRPC receiver (the collector's TraceService) on
// a loopback port.
func NewGRPC(t testing.TB) *Receiver {
	r := &Receiver{}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer(grpc.MaxRecvMsgSize(maxBody))
	coltrace.RegisterTraceServiceServer(srv, &grpcService{r: r})
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(srv.Stop)
	r.Endpoint = "http://" + lis.Addr().String()
	return r
}

// grpcService is the TraceService of a gRPC Receiver.
type grpcService struct {
	coltrace.UnimplementedTraceServiceServer
	r *Receiver
}

// Export keeps a request's spans.
func (s *grpcService) Export(ctx context.Context, req *coltrace.ExportTraceServiceRequest) (*coltrace.ExportTraceServiceResponse, error) {
	data, err := proto.Marshal(req)
	if err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	md, _ := metadata.FromIncomingContext(ctx)
	if err := s.r.keep(data, md); err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	return &coltrace.ExportTraceServiceResponse{}, nil
}

// keep decodes one export request and keeps its spans.
func (r *Receiver) keep(data []byte, headers map[string][]string) error {
	var req coltrace.ExportTraceServiceRequest
	if err := proto.Unmarshal(data, &req); err != nil {
		return fmt.Errorf("decode ExportTraceServiceRequest: %w", err)
	}
	var spans []Span
	for _, rs := range req.GetResourceSpans() {
		res := attrs(rs.GetResource().GetAttributes())
		for _, ss := range rs.GetScopeSpans() {
			for _, s := range ss.GetSpans() {
				if len(s.GetTraceId()) != 16 || len(s.GetSpanId()) != 8 {
					return fmt.Errorf("span %q: invalid trace or span id", s.GetName())
				}
				spans = append(spans, flatten(s, res))
			}
		}
	}
	h := map[string][]string{}
	for k, v := range headers {
		h[strings.ToLower(k)] = v
	}
	r.mu.Lock()
	r.spans = append(r.spans, spans...)
	r.raw = append(r.raw, data)
	r.headers = append(r.headers, h)
	f := r.onExport
	r.mu.Unlock()
	if f != nil {
		f()
	}
	return nil
}

// OnExport sets a function called after each export request is kept,
// before it is answered (so before the exporter's flush returns).
func (r *Receiver) OnExport(f func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.onExport = f
}

// flatten turns a protobuf span into a Span.
func flatten(s *tracepb.Span, res map[string]any) Span {
	out := Span{
		Name: s.GetName(), TraceID: hex.EncodeToString(s.GetTraceId()), SpanID: hex.EncodeToString(s.GetSpanId()),
		Kind: s.GetKind(), Attrs: attrs(s.GetAttributes()), Resource: res,
		StatusError: s.GetStatus().GetCode() == tracepb.Status_STATUS_CODE_ERROR, StatusMsg: s.GetStatus().GetMessage(),
	}
	if p := s.GetParentSpanId(); len(p) > 0 {
		out.ParentID = hex.EncodeToString(p)
	}
	for _, e := range s.GetEvents() {
		out.Events = append(out.Events, Event{Name: e.GetName(), Attrs: attrs(e.GetAttributes())})
	}
	return out
}

// attrs turns OTLP attributes into a map: string, bool, int64, float64
// or []any.
func attrs(kvs []*common.KeyValue) map[string]any {
	m := make(map[string]any, len(kvs))
	for _, kv := range kvs {
		m[kv.GetKey()] = value(kv.GetValue())
	}
	return m
}

func value(v *common.AnyValue) any {
	switch x := v.GetValue().(type) {
	case *common.AnyValue_StringValue:
		return x.StringValue
	case *common.AnyValue_BoolValue:
		return x.BoolValue
	case *common.AnyValue_IntValue:
		return x.IntValue
	case *common.AnyValue_DoubleValue:
		return x.DoubleValue
	case *common.AnyValue_ArrayValue:
		var out []any
		for _, e := range x.ArrayValue.GetValues() {
			out = append(out, value(e))
		}
		return out
	}
	return nil
}

// Spans returns the spans received so far.
func (r *Receiver) Spans() []Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Span(nil), r.spans...)
}

// Names returns the names of the spans received so far, for messages.
func (r *Receiver) Names() []string {
	spans := r.Spans()
	names := make([]string, len(spans))
	for i, s := range spans {
		names[i] = s.Name
	}
	return names
}

// Named returns the spans received whose name starts with prefix.
func (r *Receiver) Named(prefix string) []Span {
	var out []Span
	for _, s := range r.Spans() {
		if strings.HasPrefix(s.Name, prefix) {
			out = append(out, s)
		}
	}
	return out
}

// Contains reports whether any request body received holds b.
func (r *Receiver) Contains(b []byte) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, raw := range r.raw {
		if bytes.Contains(raw, b) {
			return true
		}
	}
	return false
}

// Header returns the values of header name (any case) in the requests
// received, in order.
func (r *Receiver) Header(name string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, h := range r.headers {
		out = append(out, h[strings.ToLower(name)]...)
	}
	return out
}
