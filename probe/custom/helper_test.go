package custom_test

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary/internal/proc/proctest"
)

// helperEnv selects a behaviour of the test binary when it runs as the
// command of an exec probe (see helperModes).
const helperEnv = "CUSTOM_EXEC_HELPER"

func TestMain(m *testing.M) { proctest.Main(m, helperEnv, helperModes) }

// helperInput is what an exec probe writes on the command's stdin.
type helperInput struct {
	Prompt struct {
		ID   string   `json:"id"`
		Text string   `json:"text"`
		Tags []string `json:"tags"`
	} `json:"prompt"`
	Response map[string]any `json:"response"`
}

// helperModes are the behaviours of the command the tests run, besides
// the ones every package shares (see proctest.Main: "print" and "fail"
// among them).
var helperModes = map[string]func() int{
	// Pass when the content contains $HELPER_WANT; report what was read,
	// the working directory and the variable named by $HELPER_SHOW.
	"judge": judge,
	// A verdict without reading stdin.
	"no-stdin": func() int {
		os.Stdout.WriteString(`{"passed": true}`)
		return 0
	},
}

// judge is the helper mode of an exec probe that judges.
func judge() int {
	var in helperInput
	if err := json.NewDecoder(os.Stdin).Decode(&in); err != nil {
		fmt.Fprintln(os.Stderr, "decode:", err)
		return 1
	}
	content, _ := in.Response["content"].(string)
	passed := strings.Contains(content, os.Getenv("HELPER_WANT"))
	score := 0.25
	if passed {
		score = 0.75
	}
	wd, _ := os.Getwd()
	_, hasRaw := in.Response["raw_response"]
	json.NewEncoder(os.Stdout).Encode(map[string]any{
		"passed": passed, "score": score, "details": "judged " + in.Prompt.ID + " (" + strings.Join(in.Prompt.Tags, ",") + ")",
		"metadata": map[string]any{
			"prompt_text": in.Prompt.Text, "content": content, "tool_calls": in.Response["tool_calls"],
			"completion_tokens": in.Response["completion_tokens"], "raw_response": hasRaw,
			"dir": wd, "shown": os.Getenv(os.Getenv("HELPER_SHOW")), "args": os.Args[1:],
		},
	})
	return 0
}

// helperPath returns the test binary, the command of the exec tests.
var helperPath = proctest.Self
