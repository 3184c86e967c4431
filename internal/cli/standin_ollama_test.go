package cli

import (
	"os"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/promptcanary/promptcanary/provider/ollama/ollamatest"
)

// standin ollama [LOG] starts Ollama's strict stand-in (see ollamatest)
// and points OLLAMA_HOST at it; with LOG, every accepted request body is
// appended to that file, one per line.
func init() {
	standins["ollama"] = func(ts *testscript.TestScript, args []string) {
		srv := ollamatest.New()
		if len(args) > 0 {
			f, err := os.OpenFile(ts.MkAbs(args[0]), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
			ts.Check(err)
			ts.Defer(func() { f.Close() })
			srv.OnRequest = func(body []byte) {
				f.Write(append(body, '\n'))
			}
		}
		ts.Defer(srv.Close)
		ts.Setenv("OLLAMA_HOST", srv.URL)
	}
}
