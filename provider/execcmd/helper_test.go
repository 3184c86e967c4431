package execcmd

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary/internal/proc/proctest"
)

// helperEnv selects a behaviour of the test binary when it runs as the
// command under test (see helperModes).
const helperEnv = "EXECCMD_TEST_HELPER"

func TestMain(m *testing.M) { proctest.Main(m, helperEnv, helperModes) }

// helperModes are the behaviours of the command the tests run, besides
// the ones every package shares (see proctest.Main: "print" and "fail"
// among them).
var helperModes = map[string]func() int{
	// A response object whose content is the request read on stdin.
	"echo": func() int {
		in, _ := io.ReadAll(os.Stdin)
		json.NewEncoder(os.Stdout).Encode(map[string]any{
			"content": string(in), "finish_reason": "end_turn", "prompt_tokens": 5, "completion_tokens": 7,
			"model": "helper-1", "system_fingerprint": "fp_1", "debug": map[string]any{"ignored": true},
		})
		return 0
	},
	// A JSON object without "content": argv, working directory and the
	// variable named by EXECCMD_SHOW.
	"inspect": func() int {
		io.Copy(io.Discard, os.Stdin)
		wd, _ := os.Getwd()
		json.NewEncoder(os.Stdout).Encode(map[string]any{"args": os.Args, "dir": wd, "env": os.Getenv(os.Getenv("EXECCMD_SHOW"))})
		return 0
	},
	// Record the pid (see proctest.WritePID), then sleep.
	"sleep-pid": func() int {
		if err := proctest.WritePID(os.Getpid()); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		time.Sleep(time.Hour)
		return 0
	},
	// Play the monitor: run a "sleep-pid" command through the exec
	// provider and wait for it (an hour), until the test kills us.
	"parent": func() int { return runProvider("sleep-pid") },
	// Exit without reading the request.
	"no-stdin": func() int {
		os.Stdout.WriteString("did not read\n")
		return 0
	},
}

// runProvider opens the exec provider on the test binary in mode and
// calls Generate once, as a monitor does.
func runProvider(mode string) int {
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	c, err := New([]string{self}, Config{Env: map[string]string{helperEnv: mode}}, "", nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	_, err = c.Generate(context.Background(), simpleRequest("hi"))
	fmt.Fprintln(os.Stderr, err)
	return 1
}
