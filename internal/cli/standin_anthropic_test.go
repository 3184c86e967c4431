package cli

import (
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/promptcanary/promptcanary/provider/anthropic/anthropictest"
)

// standinKey is the API key the stand-ins take in transcripts.
const standinKey = "standin-key-4c9e2a7f1b3d"

// "standin anthropic" starts the strict Messages API stand-in
// (anthropictest), exports ANTHROPIC_API_KEY and puts its URL in
// STANDIN_ANTHROPIC_URL, for --base-url. Requests are logged to
// standin-anthropic.log and their bodies to standin-anthropic.jsonl (see
// standinLogger).
func init() {
	standins["anthropic"] = func(ts *testscript.TestScript, args []string) {
		srv := anthropictest.NewServer(standinKey)
		ts.Defer(srv.Close)
		srv.OnRequest = standinLogger(ts, "anthropic")
		ts.Setenv("ANTHROPIC_API_KEY", standinKey)
		ts.Setenv("STANDIN_ANTHROPIC_URL", srv.URL)
	}
}
