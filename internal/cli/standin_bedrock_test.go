package cli

import (
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/promptcanary/promptcanary/provider/bedrock/bedrocktest"
)

// standin bedrock [session] starts the strict Bedrock stand-in, which
// verifies every request's SigV4 signature, and exports the credentials
// (the temporary ones with 'session'), the region and the endpoint that
// point the bedrock provider at it, with no AWS config file and no
// instance metadata service. Requests are logged to standin-bedrock.log
// and their bodies to standin-bedrock.jsonl (see standinLogger).
func init() {
	standins["bedrock"] = func(ts *testscript.TestScript, args []string) {
		key := bedrocktest.Static
		if len(args) > 0 && args[0] == "session" {
			key = bedrocktest.Session
		}
		srv := bedrocktest.Start("")
		srv.OnRequest = standinLogger(ts, "bedrock")
		ts.Defer(srv.Close)
		for k, v := range srv.Env(key) {
			ts.Setenv(k, v)
		}
	}
}
