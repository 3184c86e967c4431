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

// StandIn is a stand-in server: it answers requests and embeds a Server.
type StandIn interface {
	http.Handler
	base() *Server
}

//lint:ignore U1000 called through the StandIn constraint of Start, which staticcheck does not follow
func (s *Server) base() *Server { return s }

// Start sets the key stand-in s accepts and starts it on loopback; Close it
// when done.
func Start[S StandIn](s S, key string) S {
	b := s.base()
	b.Key = key
	b.Server = httptest.NewServer(s)
	return s
}

// Begin reads and keeps req's body and wraps w to report the request to
// OnRequest; call done once the request is answered (defer it).
func (s *Server) Begin(w http.ResponseWriter, req *http.Request) (body []byte, _ http.ResponseWriter, done func()) {
	body = s.Read(req)
	w, done = Wrap(w, req, body, s.OnRequest)
	return body, w, done
}
