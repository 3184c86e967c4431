package cli

import (
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"

	"github.com/rogpeppe/go-internal/testscript"
)

// "standin echo" starts a stand-in for a user's own app behind http/NAME:
// it takes only POST /chat with a JSON body (415 or 400 otherwise) and
// answers {"reply": BODY}, the request body as text, so probes see what
// the app got. Its URL is STANDIN_ECHO_URL; requests are logged to
// standin-echo.log and their bodies to standin-echo.jsonl (see
// standinLogger).
func init() {
	standins["echo"] = func(ts *testscript.TestScript, args []string) {
		logRequest := standinLogger(ts, "echo")
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(io.LimitReader(r.Body, 8<<20))
			status, out := echo(r, body)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			w.Write(out)
			logRequest(r.URL.Path, status, body, out)
		}))
		ts.Defer(srv.Close)
		ts.Setenv("STANDIN_ECHO_URL", srv.URL)
	}
}

// echo is the echo stand-in's answer to one request: its status and body.
func echo(r *http.Request, body []byte) (int, []byte) {
	fail := func(status int, msg string) (int, []byte) {
		out, _ := json.Marshal(map[string]string{"error": msg})
		return status, out
	}
	if r.Method != http.MethodPost || r.URL.Path != "/chat" {
		return fail(http.StatusNotFound, "POST /chat only")
	}
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
		return fail(http.StatusUnsupportedMediaType, "Content-Type must be application/json")
	}
	if !json.Valid(body) {
		return fail(http.StatusBadRequest, "the body is not JSON")
	}
	out, _ := json.Marshal(map[string]string{"reply": string(body)})
	return http.StatusOK, out
}
