package cli

import (
	"strconv"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/promptcanary/promptcanary/runner/ratelimittest"
)

// rateLimitKey is the API key the rate-limiting stand-in expects.
const rateLimitKey = "sk-standin-ratelimit-0123456789"

// standin ratelimit PERCENT [DELAY] starts an OpenAI chat completions
// stand-in (runner/ratelimittest, as strict as the real API) that answers
// PERCENT of the calls 429 asking for DELAY (default 20ms), and points
// openai/… at it through OPENAI_BASE_URL and OPENAI_API_KEY.
func init() {
	standins["ratelimit"] = func(ts *testscript.TestScript, args []string) {
		if len(args) < 1 || len(args) > 2 {
			ts.Fatalf("usage: standin ratelimit PERCENT [DELAY]")
		}
		pct, err := strconv.Atoi(args[0])
		ts.Check(err)
		cfg := ratelimittest.Config{Percent: pct, Key: rateLimitKey}
		if len(args) == 2 {
			cfg.Delay, err = time.ParseDuration(args[1])
			ts.Check(err)
		}
		srv := ratelimittest.Start(cfg)
		ts.Defer(srv.Close)
		ts.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
		ts.Setenv("OPENAI_API_KEY", rateLimitKey)
	}
}
