package execcmd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"testing"
	"time"
)

// helperEnv selects a behaviour of the test binary when it runs as the
// command under test (see helper).
const helperEnv = "EXECCMD_TEST_HELPER"

func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		os.Exit(helper(mode))
	}
	os.Exit(m.Run())
}

// helper is the command the tests run: the test binary itself, told what
// to do by EXECCMD_TEST_HELPER, so no shell scripts are needed.
func helper(mode string) int {
	switch mode {
	case "echo":
		// A response object whose content is the request read on stdin.
		in, _ := io.ReadAll(os.Stdin)
		json.NewEncoder(os.Stdout).Encode(map[string]any{
			"content": string(in), "finish_reason": "end_turn", "prompt_tokens": 5, "completion_tokens": 7,
			"model": "helper-1", "system_fingerprint": "fp_1", "debug": map[string]any{"ignored": true},
		})
	case "print":
		// Exactly EXECCMD_OUT on stdout.
		io.Copy(io.Discard, os.Stdin)
		os.Stdout.WriteString(os.Getenv("EXECCMD_OUT"))
	case "inspect":
		// A JSON object without "content": argv, working directory and
		// the variable named by EXECCMD_SHOW.
		io.Copy(io.Discard, os.Stdin)
		wd, _ := os.Getwd()
		json.NewEncoder(os.Stdout).Encode(map[string]any{"args": os.Args, "dir": wd, "env": os.Getenv(os.Getenv("EXECCMD_SHOW"))})
	case "fail":
		// EXECCMD_ERR (with $VARS expanded) on stderr, exit EXECCMD_CODE.
		io.Copy(io.Discard, os.Stdin)
		fmt.Fprint(os.Stderr, os.ExpandEnv(os.Getenv("EXECCMD_ERR")))
		code, _ := strconv.Atoi(os.Getenv("EXECCMD_CODE"))
		return code
	case "sleep":
		time.Sleep(time.Hour)
	case "sleep-pid":
		// Record the pid in EXECCMD_PIDFILE, then sleep.
		// (written aside and renamed, so the test never reads half of it).
		pidFile := os.Getenv("EXECCMD_PIDFILE")
		if err := os.WriteFile(pidFile+".tmp", []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		if err := os.Rename(pidFile+".tmp", pidFile); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		time.Sleep(time.Hour)
	case "parent":
		// Play the monitor: run a "sleep-pid" command through the exec
		// provider and wait for it (an hour), until the test kills us.
		return runProvider("sleep-pid")
	case "huge":
		// Write until stdout is closed.
		chunk := bytes.Repeat([]byte("x"), 1<<20)
		for {
			if _, err := os.Stdout.Write(chunk); err != nil {
				return 1
			}
		}
	case "no-stdin":
		// Exit without reading the request.
		os.Stdout.WriteString("did not read\n")
	default:
		fmt.Fprintf(os.Stderr, "unknown helper mode %q\n", mode)
		return 2
	}
	return 0
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
