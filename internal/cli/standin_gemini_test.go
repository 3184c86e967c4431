package cli

import (
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/promptcanary/promptcanary/provider/gemini/geminitest"
)

// "standin gemini" starts the strict Gemini API stand-in (geminitest),
// exports GEMINI_API_KEY and puts its URL in STANDIN_GEMINI_URL, for
// --base-url. Requests are logged to standin-gemini.log and their bodies
// to standin-gemini.jsonl (see standinLogger).
func init() {
	standins["gemini"] = func(ts *testscript.TestScript, args []string) {
		srv := geminitest.NewServer(standinKey)
		ts.Defer(srv.Close)
		srv.OnRequest = standinLogger(ts, "gemini")
		ts.Setenv("GEMINI_API_KEY", standinKey)
		ts.Setenv("GOOGLE_API_KEY", "")
		ts.Setenv("STANDIN_GEMINI_URL", srv.URL)
	}
}
