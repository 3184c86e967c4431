package apicall

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary/internal/httpc"
	"github.com/promptcanary/promptcanary/provider"
)

// endless is a body of n bytes that counts what was read of it.
type endless struct {
	first string
	n     int64
	read  int64
}

func (e *endless) Read(p []byte) (int, error) {
	if e.read >= e.n {
		return 0, io.EOF
	}
	k := 0
	for k < len(p) && e.read < e.n {
		if e.read < int64(len(e.first)) {
			p[k] = e.first[e.read]
		} else {
			p[k] = 'x'
		}
		k++
		e.read++
	}
	return k, nil
}

func (e *endless) Close() error { return nil }

type bodyTransport struct {
	status int
	body   io.ReadCloser
}

func (b bodyTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: b.status, Header: http.Header{}, Body: b.body, Request: r}, nil
}

// TestErrorBodyReadToAPrefix: a 500 with a 100 MB body is read to
// httpc.MaxErrorBody (and a little of the transport's buffering), not to the
// end, and its message is still taken from its start.
func TestErrorBodyReadToAPrefix(t *testing.T) {
	body := &endless{first: "upstream exploded: ", n: 100 << 20}
	c := &httpc.Client{HTTP: &http.Client{Transport: bodyTransport{500, body}}}
	_, err := Do(context.Background(), c, http.MethodPost, "http://provider.test/v1", nil)
	var pe *provider.Error
	if !errors.As(err, &pe) || pe.StatusCode != 500 || !strings.HasPrefix(pe.Message, "upstream exploded: xxx") || len(pe.Message) > httpc.MaxMessage+len("…") {
		t.Fatalf("got %v, want a 500 whose message is the start of the body", err)
	}
	if body.read > httpc.MaxErrorBody+64<<10 {
		t.Errorf("read %d bytes of the error body, want at most %d", body.read, httpc.MaxErrorBody)
	}
}

// TestAnswerReadThroughTheBound: a 2xx body is read through the call's
// bound: its long strings come back cut, and the bound records the cut.
func TestAnswerReadThroughTheBound(t *testing.T) {
	doc := `{"content":"` + strings.Repeat("a", 5000) + `","n":1}`
	c := &httpc.Client{HTTP: &http.Client{Transport: bodyTransport{200, io.NopCloser(strings.NewReader(doc))}}}
	b := &provider.Bound{Max: 100}
	resp, err := Do(provider.WithBound(context.Background(), b), c, http.MethodPost, "http://provider.test/v1", nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"content":"` + strings.Repeat("a", 100) + `","n":1}`; string(resp.Body) != want {
		t.Errorf("got a body of %d bytes, want %d", len(resp.Body), len(want))
	}
	if cut, original := b.Cut(); !cut || original != 5000 {
		t.Errorf("got cut %v of %d bytes, want a cut of 5000", cut, original)
	}
}
