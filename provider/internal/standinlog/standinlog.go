// Package standinlog is what the providers' stand-in servers share: each
// reports the requests it answered (path, status, request body and, for
// an error, the error answer), so CLI transcripts can log them to a file
// and check what a client sent; keeps the bodies it received; and, for the
// key-checking ones, the Server base and the Required object builder.
package standinlog

import (
	"io"
	"net/http"
	"sync"
)

// Func receives one answered request: its path, the status answered, the
// request body and, when the status is 400 or more, the answer's body.
type Func func(path string, status int, body, answer []byte)

// maxAnswer bounds the part of an error answer kept for the log.
const maxAnswer = 4 << 10

// Wrap returns w wrapped to note the status and an error answer, and a
// done func that reports the request to f; with f nil it returns w and a
// no-op. Call done once the handler has answered (defer it).
func Wrap(w http.ResponseWriter, r *http.Request, body []byte, f Func) (http.ResponseWriter, func()) {
	if f == nil {
		return w, func() {}
	}
	rec := &recorder{ResponseWriter: w, status: http.StatusOK}
	return rec, func() { f(r.URL.Path, rec.status, body, rec.answer) }
}

// recorder is a ResponseWriter that keeps the status and the start of an
// error answer.
type recorder struct {
	http.ResponseWriter
	status int
	answer []byte
}

func (r *recorder) WriteHeader(status int) {
	r.status = status
	r.ResponseWriter.WriteHeader(status)
}

func (r *recorder) Write(b []byte) (int, error) {
	if r.status >= 400 && len(r.answer) < maxAnswer {
		r.answer = append(r.answer, b[:min(len(b), maxAnswer-len(r.answer))]...)
	}
	return r.ResponseWriter.Write(b)
}

// MaxBody bounds the request body a stand-in reads (32 MiB).
const MaxBody = 32 << 20

// Recorder keeps the bodies of the requests a stand-in received, valid or
// not, for tests to read; embed it in the server. It is safe for
// concurrent use.
type Recorder struct {
	mu     sync.Mutex
	bodies [][]byte
}

// Read reads req's body (up to MaxBody), keeps it and returns it.
func (r *Recorder) Read(req *http.Request) []byte {
	body, _ := io.ReadAll(io.LimitReader(req.Body, MaxBody))
	r.mu.Lock()
	r.bodies = append(r.bodies, body)
	r.mu.Unlock()
	return body
}

// Bodies returns the bodies received so far, in order.
func (r *Recorder) Bodies() [][]byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([][]byte(nil), r.bodies...)
}
