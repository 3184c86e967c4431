package custom_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// helperEnv selects a behaviour of the test binary when it runs as the
// command of an exec probe (see helper).
const helperEnv = "CUSTOM_EXEC_HELPER"

func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		os.Exit(helper(mode))
	}
	os.Exit(m.Run())
}

// helperInput is what an exec probe writes on the command's stdin.
type helperInput struct {
	Prompt struct {
		ID   string   `json:"id"`
		Text string   `json:"text"`
		Tags []string `json:"tags"`
	} `json:"prompt"`
	Response map[string]any `json:"response"`
}

// helper is the command the tests run: the test binary itself, told what
// to do by CUSTOM_EXEC_HELPER, so that no script language is needed.
func helper(mode string) int {
	switch mode {
	case "judge":
		// Pass when the content contains $HELPER_WANT; report what was
		// read, the working directory and the variable named by
		// $HELPER_SHOW.
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
	case "print":
		// Exactly $HELPER_OUT on stdout, after reading stdin.
		io.Copy(io.Discard, os.Stdin)
		os.Stdout.WriteString(os.Getenv("HELPER_OUT"))
	case "no-stdin":
		// A verdict without reading stdin.
		os.Stdout.WriteString(`{"passed": true}`)
	case "fail":
		// $HELPER_ERR (with $VARS expanded) on stderr, exit $HELPER_CODE.
		io.Copy(io.Discard, os.Stdin)
		fmt.Fprint(os.Stderr, os.ExpandEnv(os.Getenv("HELPER_ERR")))
		code, _ := strconv.Atoi(os.Getenv("HELPER_CODE"))
		return code
	case "sleep":
		time.Sleep(time.Hour)
	case "spawn":
		// Start a sleeping grandchild that shares stdout, record its pid
		// in $HELPER_PIDFILE, then sleep.
		self, _ := os.Executable()
		child := exec.Command(self)
		child.Env = append(os.Environ(), helperEnv+"=sleep")
		child.Stdout = os.Stdout
		if err := child.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		os.WriteFile(os.Getenv("HELPER_PIDFILE"), []byte(strconv.Itoa(child.Process.Pid)), 0o644)
		time.Sleep(time.Hour)
	case "huge":
		// Write until stdout is closed.
		chunk := bytes.Repeat([]byte("x"), 64<<10)
		for {
			if _, err := os.Stdout.Write(chunk); err != nil {
				return 1
			}
		}
	default:
		fmt.Fprintf(os.Stderr, "unknown helper mode %q\n", mode)
		return 2
	}
	return 0
}

// helperPath returns the test binary, the command of the exec tests.
func helperPath(t testing.TB) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return self
}
