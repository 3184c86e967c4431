package cli

import (
	"bytes"
	"context"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoSecretLeaks runs a suite against an OpenAI-compatible server, once
// answering and once rejecting the key while echoing it back, and checks
// that the key appears nowhere: not on stdout or stderr, not in the JSON,
// Markdown and HTML reports, the baseline file or the history database.
func TestNoSecretLeaks(t *testing.T) {
	const key = "sk-test-0123456789abcdefSECRET"
	tests := []struct {
		name     string
		status   int
		body     string
		wantCode ExitCode
	}{
		{"answers", 200, `{"id":"chatcmpl-1","object":"chat.completion","model":"gpt-4o-mini-2024-07-18","system_fingerprint":"fp_1",
			"choices":[{"index":0,"message":{"role":"assistant","content":"Paris"},"finish_reason":"stop"}],
			"usage":{"prompt_tokens":9,"completion_tokens":1,"total_tokens":10}}`, ExitOK},
		{"rejects the key and echoes it", 401, `{"error":{"message":"Incorrect API key provided: ` + key + `. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","code":"invalid_api_key"}}`, ExitUnmeasured},
		{"echoes the key in the answer and the model field", 200, `{"id":"chatcmpl-2","object":"chat.completion","model":"gpt-4o-mini-` + key + `",
			"choices":[{"index":0,"message":{"role":"assistant","content":"Your key is ` + key + `"},"finish_reason":"stop"}],
			"usage":{"prompt_tokens":9,"completion_tokens":5,"total_tokens":14}}`, ExitOK},
		{"a long error whose cut falls inside the key", 400, `{"error":{"message":"` + strings.Repeat("x", 285) + key + `"}}`, ExitUnmeasured},
		{"server error echoing the header", 500, `{"error":{"message":"upstream rejected Authorization: Bearer ` + key + `"}}`, ExitUnmeasured},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var sawKey bool
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				sawKey = r.Header.Get("Authorization") == "Bearer "+key
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(tc.status)
				w.Write([]byte(tc.body))
			}))
			defer srv.Close()
			t.Setenv("OPENAI_API_KEY", key)
			dir := t.TempDir()
			config := filepath.Join(dir, "canary.yaml")
			os.WriteFile(config, []byte("name: secrets\nprobes: [json_validity, direct_answer]\nprompts:\n  - {id: q, text: \"What is the capital of France?\"}\n"), 0o644)
			var out, errOut bytes.Buffer
			args := []string{"run", "-c", config, "-p", "openai/gpt-4o-mini", "--base-url", srv.URL + "/v1",
				"--retries", "0", "--no-progress", "--save-baseline", "--baseline-dir", filepath.Join(dir, "baselines"),
				"--store", filepath.Join(dir, "history.db"),
				"-o", filepath.Join(dir, "run.json"), "--output-md", filepath.Join(dir, "run.md"), "--output-html", filepath.Join(dir, "run.html")}
			code := Main(context.Background(), args, Stdio{In: strings.NewReader(""), Out: &out, Err: &errOut})
			if code != int(tc.wantCode) {
				t.Fatalf("got exit %d, want %d\nstderr: %s", code, tc.wantCode, errOut.String())
			}
			if !sawKey {
				t.Fatal("the server never saw the key: the test would prove nothing")
			}
			if strings.Contains(out.String(), key[:12]) || strings.Contains(errOut.String(), key[:12]) {
				t.Errorf("the key leaked to stdout or stderr:\n%s\n%s", out.String(), errOut.String())
			}
			files := 0
			filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return err
				}
				data, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				files++
				if bytes.Contains(data, []byte(key)) || bytes.Contains(data, []byte("0123456789abcdefSECRET")) || bytes.Contains(data, []byte(key[:12])) {
					t.Errorf("the key leaked into %s", path)
				}
				return nil
			})
			if files < 4 {
				t.Errorf("got %d files written, want at least the config, history and three reports", files)
			}
			if tc.status != 200 || strings.Contains(tc.body, "Your key") {
				data, _ := os.ReadFile(filepath.Join(dir, "run.json"))
				if !bytes.Contains(data, []byte("[REDACTED]")) {
					t.Errorf("want the provider's message kept with the key redacted; run.json:\n%s", data)
				}
			}
		})
	}
}
