package standinlog

import (
	"net/http"
	"net/http/httptest"
)

// Server holds what a key-checking stand-in shares: the loopback server,
// the key it accepts, the hook that logs each answered request and the
// bodies it received. Embed it in the stand-in and start it with Start.
type Server struct {
	*httptest.Server
	// Key is the API key the stand-in accepts.
	Key string
	// OnRequest, when set before the first request, is called with each
	// request once it is answered (transcripts log them to a file).
	OnRequest Func

	Recorder
}

// Start starts the loopback server answering with h, the stand-in that
// embeds s; Close it when done.
func (s *Server) Start(h http.Handler) { s.Server = httptest.NewServer(h) }

// Begin reads and keeps req's body and wraps w to report the request to
// OnRequest; call done once the request is answered (defer it).
func (s *Server) Begin(w http.ResponseWriter, req *http.Request) (body []byte, _ http.ResponseWriter, done func()) {
	body = s.Read(req)
	w, done = Wrap(w, req, body, s.OnRequest)
	return body, w, done
}
