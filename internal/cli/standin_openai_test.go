package cli

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/promptcanary/promptcanary/provider/openai/openaitest"
)

// standin openai [BEHAVIOUR | MODEL=BEHAVIOUR | 429=N]... starts the
// strict OpenAI stand-in (provider/openai/openaitest) and points the
// openai provider at it through OPENAI_BASE_URL and OPENAI_API_KEY.
// BEHAVIOUR (auto, text, json, parallel_tools, refusal, length,
// rate_limited) is the answer for every model, MODEL=BEHAVIOUR for one,
// 429=N answers the next N requests with HTTP 429. Every request is
// logged to standin-openai.log in the current directory as
// "STATUS PATH MODEL" plus, for a rejection, "rejected: MESSAGE", so a
// script can check that nothing was rejected, and each request's body to
// standin-openai.jsonl, one per line, so a script can check what was sent.
func init() {
	standins["openai"] = func(ts *testscript.TestScript, args []string) {
		s := openaitest.New()
		ts.Defer(s.Close)
		for _, a := range args {
			if !configureOpenAIStandin(s, a) {
				ts.Fatalf("standin openai: argument %q: want BEHAVIOUR, MODEL=BEHAVIOUR or 429=N; behaviours: %v", a, openaitest.Behaviours)
			}
		}
		f, err := os.OpenFile(ts.MkAbs("standin-openai.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		ts.Check(err)
		ts.Defer(func() { _ = f.Close() })
		var mu sync.Mutex
		bodies := appendFile(ts, "standin-openai.jsonl")
		s.OnRequest = func(r openaitest.Request) {
			line := fmt.Sprintf("%d %s %s", r.Status, r.Path, r.Model)
			if r.Status >= 400 && r.Status != 429 {
				line += " rejected: " + r.Error
			}
			mu.Lock()
			defer mu.Unlock()
			fmt.Fprintln(f, line)
			fmt.Fprintln(bodies, oneLine(r.Body))
		}
		ts.Setenv("OPENAI_BASE_URL", s.BaseURL())
		ts.Setenv("OPENAI_API_KEY", s.Key)
	}
}

// configureOpenAIStandin applies one argument of 'standin openai'.
func configureOpenAIStandin(s *openaitest.Server, arg string) bool {
	model, value, hasModel := strings.Cut(arg, "=")
	if !hasModel {
		model, value = "", arg
	}
	if model == "429" {
		n, err := strconv.Atoi(value)
		if err != nil || n < 0 {
			return false
		}
		s.RateLimitNext(n)
		return true
	}
	for _, b := range openaitest.Behaviours {
		if string(b) == value {
			s.Set(model, b)
			return true
		}
	}
	return false
}
