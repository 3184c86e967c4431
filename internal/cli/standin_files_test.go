package cli

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// "standin files" starts a stand-in for a user's app whose answers a
// transcript can change between runs: POST /NAME answers {"reply": TEXT},
// TEXT the content of NAME.txt in the directory the stand-in was started
// in, read at each request (404 when there is none). Its URL is
// STANDIN_FILES_URL.
func init() {
	standins["files"] = func(ts *testscript.TestScript, args []string) {
		dir := ts.MkAbs(".")
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			name := strings.TrimPrefix(r.URL.Path, "/")
			text, err := os.ReadFile(path.Join(dir, path.Base(name)+".txt"))
			if r.Method != http.MethodPost || err != nil {
				http.Error(w, `{"error": "POST /NAME with NAME.txt only"}`, http.StatusNotFound)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(map[string]string{"reply": strings.TrimSpace(string(text))})
		}))
		ts.Defer(srv.Close)
		ts.Setenv("STANDIN_FILES_URL", srv.URL)
	}
}
