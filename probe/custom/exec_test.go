package custom_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/proc/proctest"
	"github.com/promptcanary/promptcanary/probe"
	"github.com/promptcanary/promptcanary/probe/custom"
	"github.com/promptcanary/promptcanary/probe/internal/probetest"
	"github.com/promptcanary/promptcanary/suite"
)

// execProbe builds an exec probe that runs the test binary in helper mode
// with the extra environment env and parameters extra.
func execProbe(t testing.TB, mode string, env map[string]any, extra map[string]any) probe.Probe {
	t.Helper()
	e := map[string]any{helperEnv: mode}
	for k, v := range env {
		e[k] = v
	}
	raw := map[string]any{"command": []any{helperPath(t)}, "env": e}
	for k, v := range extra {
		raw[k] = v
	}
	return probetest.New(t, "exec", raw)
}

var (
	execPrompt = &promptcanary.Prompt{ID: "capital", Text: "Capital of France?", Tags: []string{"geo", "smoke"}}
	execResp   = &promptcanary.Response{Content: "Paris.", CompletionTokens: 3, FinishReason: "stop",
		ToolCalls:   []promptcanary.ToolCall{{ID: "c1", Name: "lookup", Arguments: json.RawMessage(`{"q":"France"}`)}},
		RawResponse: json.RawMessage(`{"huge": "provider body"}`)}
)

func TestExecVerdict(t *testing.T) {
	dir := t.TempDir()
	if d, err := filepath.EvalSymlinks(dir); err == nil {
		dir = d
	}
	t.Setenv("CUSTOM_TEST_COLOUR", "blue")
	p := execProbe(t, "judge", map[string]any{"HELPER_WANT": "Paris", "HELPER_SHOW": "COLOUR", "COLOUR": "${CUSTOM_TEST_COLOUR}-ish"},
		map[string]any{"dir": dir, "timeout": "1m"})
	res := probetest.Eval(p, execPrompt, execResp)
	probetest.CheckVerdict(t, res, true, 0.75)
	if want := "judged capital (geo,smoke)"; res.Details != want {
		t.Errorf("details: got %q, want %q", res.Details, want)
	}
	want := map[string]any{
		"prompt_text": "Capital of France?", "content": "Paris.", "completion_tokens": 3.0, "raw_response": false,
		"tool_calls": []any{map[string]any{"id": "c1", "name": "lookup", "arguments": map[string]any{"q": "France"}}},
		"dir":        dir, "shown": "blue-ish", "args": []any{},
	}
	if diff := cmp.Diff(want, res.Metadata); diff != "" {
		t.Errorf("metadata (-want +got):\n%s", diff)
	}
	res = probetest.Eval(p, execPrompt, &promptcanary.Response{Content: "Lyon."})
	probetest.CheckVerdict(t, res, false, 0.25)
}

func TestExecOutput(t *testing.T) {
	tests := []struct {
		name    string
		out     string
		pass    bool
		score   float64
		details string
		meta    map[string]any
	}{
		{"passed only", `{"passed": true}`, true, 1, "Command passed the response with score 1.", map[string]any{}},
		{"failed only, blank lines around", "\n {\"passed\": false}\n\n", false, 0, "Command failed the response with score 0.", map[string]any{}},
		{"everything", `{"passed": false, "score": 0.4, "details": "2 of 5 citations resolve", "metadata": {"resolved": 2, "urls": ["a"]}}`,
			false, 0.4, "2 of 5 citations resolve", map[string]any{"resolved": 2.0, "urls": []any{"a"}}},
		{"null metadata and score", `{"passed": true, "score": null, "metadata": null}`, true, 1, "Command passed the response with score 1.", map[string]any{}},
		{"long details are cut", `{"passed": true, "details": "` + strings.Repeat("é", 5000) + `"}`, true, 1, strings.Repeat("é", 4000) + "…", map[string]any{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := execProbe(t, "print", map[string]any{proctest.OutEnv: tc.out}, nil)
			res := probetest.Eval(p, execPrompt, execResp)
			probetest.CheckVerdict(t, res, tc.pass, tc.score)
			if res.Details != tc.details {
				t.Errorf("details: got %q, want %q", res.Details, tc.details)
			}
			if diff := cmp.Diff(tc.meta, res.Metadata); diff != "" {
				t.Errorf("metadata (-want +got):\n%s", diff)
			}
		})
	}
}

// TestExecFailures runs commands that misbehave in every way the probe
// knows: each is a failed result with score 0 whose details say why.
func TestExecFailures(t *testing.T) {
	self := helperPath(t)
	tests := []struct {
		name  string
		mode  string
		env   map[string]any
		extra map[string]any
		// error is metadata["error"]; details must contain it.
		error  string
		stderr string // metadata["stderr"], "" for none
		code   any    // metadata["exit_code"], nil for none
	}{
		{"exit status", "fail", map[string]any{proctest.ErrEnv: "starting\nTraceback: boom\nValueError: bad input\n", proctest.CodeEnv: "3"}, nil,
			"exit status 3", "starting; Traceback: boom; ValueError: bad input", 3},
		{"exit status without stderr", "fail", map[string]any{proctest.CodeEnv: "1"}, nil, "exit status 1", "", 1},
		{"timeout", "sleep", nil, map[string]any{"timeout": "300ms"}, "timed out after 300ms", "", nil},
		{"output too large", "huge", nil, nil, "wrote more than 1 MiB on stdout", "", nil},
		{"nothing on stdout", "print", map[string]any{proctest.OutEnv: " \n"}, nil,
			`wrote nothing on stdout; want a JSON object such as {"passed": true, "score": 1}`, "", nil},
		{"prose", "print", map[string]any{proctest.OutEnv: "looks good to me\n"}, nil,
			`wrote "looks good to me" on stdout; want a JSON object such as {"passed": true, "score": 1}`, "", nil},
		{"long prose is cut", "print", map[string]any{proctest.OutEnv: strings.Repeat("ab", 1000)}, nil,
			`wrote "` + strings.Repeat("ab", 100) + `…" on stdout; want a JSON object such as {"passed": true, "score": 1}`, "", nil},
		{"broken JSON", "print", map[string]any{proctest.OutEnv: `{"passed": tru}`}, nil,
			"wrote invalid output on stdout: invalid character '}' in literal true (expecting 'e')", "", nil},
		{"unknown key", "print", map[string]any{proctest.OutEnv: `{"pass": true}`}, nil,
			`wrote invalid output on stdout: unknown field "pass"; the keys are passed, score, details and metadata`, "", nil},
		{"wrong type", "print", map[string]any{proctest.OutEnv: `{"passed": "yes"}`}, nil,
			"wrote invalid output on stdout: cannot unmarshal string into Go struct field execOutput.passed of type bool", "", nil},
		{"metadata not an object", "print", map[string]any{proctest.OutEnv: `{"passed": true, "metadata": [1]}`}, nil,
			"wrote invalid output on stdout: cannot unmarshal array into Go struct field execOutput.metadata of type map[string]interface {}", "", nil},
		{"two values", "print", map[string]any{proctest.OutEnv: `{"passed": true} {"passed": false}`}, nil,
			"wrote more than one JSON value on stdout; want one object", "", nil},
		{"no passed", "print", map[string]any{proctest.OutEnv: `{"score": 1}`}, nil,
			`wrote no "passed" on stdout; want true or false`, "", nil},
		{"score above 1", "print", map[string]any{proctest.OutEnv: `{"passed": true, "score": 1.5}`}, nil,
			"wrote score 1.5, outside [0,1]", "", nil},
		{"negative score", "print", map[string]any{proctest.OutEnv: `{"passed": false, "score": -0.1}`}, nil,
			"wrote score -0.1, outside [0,1]", "", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := execProbe(t, tc.mode, tc.env, tc.extra)
			res := probetest.Eval(p, execPrompt, execResp)
			probetest.CheckVerdict(t, res, false, 0)
			want := map[string]any{"error": tc.error}
			if tc.stderr != "" {
				want["stderr"] = tc.stderr
			}
			if tc.code != nil {
				want["exit_code"] = tc.code
			}
			if diff := cmp.Diff(want, res.Metadata); diff != "" {
				t.Errorf("metadata (-want +got):\n%s", diff)
			}
			if wantDetails := "Command " + filepath.Base(self) + " failed: " + tc.error; !strings.HasPrefix(res.Details, wantDetails) {
				t.Errorf("details: got %q, want it to start with %q", res.Details, wantDetails)
			}
			if tc.stderr != "" && !strings.HasSuffix(res.Details, "; stderr: "+tc.stderr) {
				t.Errorf("details: got %q, want it to end with the stderr tail", res.Details)
			}
		})
	}
}

// TestExecStdinNotRead checks that a command that answers without reading
// its input is judged by its answer.
func TestExecStdinNotRead(t *testing.T) {
	p := execProbe(t, "no-stdin", nil, nil)
	big := &promptcanary.Response{Content: strings.Repeat("x", 1<<20)}
	probetest.CheckVerdict(t, probetest.Eval(p, execPrompt, big), true, 1)
}

// TestExecSecrets checks that the values substituted for ${NAME} in env
// never reach details or metadata, whatever the command prints.
func TestExecSecrets(t *testing.T) {
	const secret = "sk-test-0123456789abcdef"
	t.Setenv("CUSTOM_TEST_TOKEN", secret)
	env := map[string]any{"TOKEN": "${CUSTOM_TEST_TOKEN}"}

	env[proctest.ErrEnv], env[proctest.CodeEnv] = "auth failed for $TOKEN\n", "2"
	res := probetest.Eval(execProbe(t, "fail", env, nil), execPrompt, execResp)
	probetest.CheckVerdict(t, res, false, 0)
	if got := fmt.Sprint(res.Details, res.Metadata); strings.Contains(got, secret) || !strings.Contains(got, "auth failed for [REDACTED]") {
		t.Errorf("failure: got %s, want the stderr tail with the token redacted", got)
	}

	out := fmt.Sprintf(`{"passed": true, "details": "used %s", "metadata": {"token": %q, "nested": {"t": %q}}}`, secret, secret, "x"+secret)
	res = probetest.Eval(execProbe(t, "print", map[string]any{"TOKEN": "${CUSTOM_TEST_TOKEN}", proctest.OutEnv: out}, nil), execPrompt, execResp)
	probetest.CheckVerdict(t, res, true, 1)
	if got := fmt.Sprint(res.Details, res.Metadata); strings.Contains(got, secret) {
		t.Errorf("verdict: got %s, want the token redacted", got)
	}
	if res.Metadata["token"] != "[REDACTED]" {
		t.Errorf("metadata token: got %v, want [REDACTED]", res.Metadata["token"])
	}
}

// TestExecConcurrent judges many responses at once with one probe; run
// with -race.
func TestExecConcurrent(t *testing.T) {
	p := execProbe(t, "judge", map[string]any{"HELPER_WANT": "even"}, nil)
	probetest.Concurrently(8, func(i int) {
		content := "odd"
		if i%2 == 0 {
			content = "even"
		}
		res := p.Evaluate(context.Background(), probe.Input{Prompt: &promptcanary.Prompt{ID: fmt.Sprint(i)}, Response: &promptcanary.Response{Content: content}})
		if want := i%2 == 0; res.Passed != want || res.Details != fmt.Sprintf("judged %d ()", i) {
			t.Errorf("call %d: got %v %q, want passed %v", i, res.Passed, res.Details, want)
		}
	})
}

func TestExecLoadErrors(t *testing.T) {
	self := helperPath(t)
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain.txt")
	if err := os.WriteFile(plain, []byte("not a program"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	tests := []problemCase{
		{"missing command, unknown parameter", map[string]any{"cmd": []any{"x"}}, []string{
			"cmd: unknown parameter for exec | known parameters: command, timeout, env, dir",
			"command: required parameter is missing | the program and its arguments, for example [python3, checks/tone.py] or \"python3 checks/tone.py\" (split with shell-like quoting); never run through a shell",
		}},
		{"command is a number", map[string]any{"command": 3}, []string{
			`command: must be a string or list of strings, got integer 3 | the program and its arguments, for example [python3, checks/tone.py] or "python3 checks/tone.py" (split with shell-like quoting); never run through a shell`,
		}},
		{"command string unterminated", map[string]any{"command": "python3 'check.py"}, []string{
			"command: unterminated single quote at byte 8 | write the command as a list, for example [python3, checks/tone.py]",
		}},
		{"empty command", map[string]any{"command": []any{}}, []string{
			"command: must not be empty | name the program and its arguments, for example [python3, checks/tone.py]",
		}},
		{"empty program", map[string]any{"command": []any{"", "x"}}, []string{
			"command[0]: the program must not be empty | name the program first, for example [python3, checks/tone.py]",
		}},
		{"not in PATH", map[string]any{"command": []any{"no-such-checker-xyz"}}, []string{
			`command[0]: command "no-such-checker-xyz" not found in PATH | a bare name is looked up in PATH; a path with a slash is relative to the directory of canary.yaml`,
		}},
		{"no such file", map[string]any{"command": []any{"./checks/tone"}}, []string{
			`command[0]: command "./checks/tone": no such file (looked for ` + filepath.Join(dir, "checks/tone") + `) | a bare name is looked up in PATH; a path with a slash is relative to the directory of canary.yaml`,
		}},
		{"not executable", map[string]any{"command": []any{"./plain.txt"}}, []string{
			`command[0]: command "./plain.txt" is not executable (chmod +x ` + plain + `) | a bare name is looked up in PATH; a path with a slash is relative to the directory of canary.yaml`,
		}},
		{"a directory", map[string]any{"command": []any{dir + "/"}}, []string{
			`command[0]: command "` + dir + `/" is a directory | a bare name is looked up in PATH; a path with a slash is relative to the directory of canary.yaml`,
		}},
		{"NUL in an argument", map[string]any{"command": []any{self, "a\x00b"}}, []string{
			"command[1]: contains a NUL byte | ",
		}},
		{"timeout without unit", map[string]any{"command": []any{self}, "timeout": 30}, []string{
			`timeout: invalid duration "30" | a positive duration with its unit, such as 30s or 2m`,
		}},
		{"negative timeout", map[string]any{"command": []any{self}, "timeout": "-1s"}, []string{
			`timeout: invalid duration "-1s" | a positive duration with its unit, such as 30s or 2m`,
		}},
		{"timeout too long", map[string]any{"command": []any{self}, "timeout": "6m"}, []string{
			"timeout: out of range: got 6m, allowed 100ms to 5m | use a duration from 100ms to 5m, for example 30s",
		}},
		{"timeout too short to start a process", map[string]any{"command": []any{self}, "timeout": "1ns"}, []string{
			"timeout: out of range: got 1ns, allowed 100ms to 5m | use a duration from 100ms to 5m, for example 30s",
		}},
		{"bad env", map[string]any{"command": []any{self}, "env": map[string]any{
			"A=B": "x", "LIST": []any{"a"}, "UNSET": "${CUSTOM_TEST_SURELY_UNSET}", "BAD": "${not closed", "OK": 3}}, []string{
			"env.A=B: invalid variable name \"A=B\" | a variable name is letters, digits and underscores",
			"env.BAD: invalid ${…} reference: want ${NAME} with NAME made of letters, digits and underscores | set the variable before loading the suite, or write the value itself",
			`env.LIST: must be a string, number or boolean | quote the value, for example LIST: "text"`,
			"env.UNSET: environment variable CUSTOM_TEST_SURELY_UNSET is not set | set the variable before loading the suite, or write the value itself",
		}},
		{"env not a mapping", map[string]any{"command": []any{self}, "env": []any{"A=1"}}, []string{
			"env: must be a mapping, got a list | variables added to the inherited environment; ${NAME} in a value is replaced by the variable NAME",
		}},
		{"dir missing", map[string]any{"command": []any{self}, "dir": "nope"}, []string{
			`dir: no such directory "nope" | dir is relative to the directory of canary.yaml`,
		}},
		{"dir is a file", map[string]any{"command": []any{self}, "dir": "plain.txt"}, []string{
			`dir: "plain.txt" is not a directory | `,
		}},
		{"dir empty", map[string]any{"command": []any{self}, "dir": ""}, []string{
			"dir: must not be empty | name a directory, or remove dir to inherit promptcanary's working directory",
		}},
	}
	checkProblems(t, "exec", tests)
}

// TestExecCommandString checks the string form of command passed to the
// type's New: split like the exec provider's command line.
func TestExecCommandString(t *testing.T) {
	typ, err := probe.Lookup("exec")
	if err != nil {
		t.Fatal(err)
	}
	self := helperPath(t)
	p, err := typ.New(probe.Params{"command": "'" + self + `' --mode "strict json"`, "timeout": "10s"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := p.(*custom.Exec).Argv(), []string{self, "--mode", "strict json"}; !cmp.Equal(got, want) {
		t.Errorf("argv: got %q, want %q", got, want)
	}
	_, err = typ.New(probe.Params{"command": "check.py | tee log"})
	want := []string{`command: unquoted '|' at byte 9: the command is not run through a shell, so quote it or put the pipeline in a script | write the command as a list, for example [python3, checks/tone.py]`}
	if diff := cmp.Diff(want, problems(t, err)); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}

// TestExecCommandStringInSuite loads a canary.yaml that writes command as
// one string: probe.Command keeps it, and the probe splits it.
func TestExecCommandStringInSuite(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go in PATH")
	}
	path := filepath.Join(t.TempDir(), "canary.yaml")
	doc := `name: string command
prompts: [hi]
probes:
  - type: exec
    command: "go version"
`
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := suite.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	in := s.ProbesFor(s.Prompts[0].ID)
	if len(in) != 1 {
		t.Fatalf("got %d probes, want 1", len(in))
	}
	e, ok := in[0].Probe.(*custom.Exec)
	if !ok {
		t.Fatalf("got %T, want *custom.Exec", in[0].Probe)
	}
	if got, want := e.Argv(), []string{"go", "version"}; !cmp.Equal(got, want) {
		t.Errorf("argv: got %q, want %q", got, want)
	}
}

// TestExecDefaults checks the defaults that Check fills in.
func TestExecDefaults(t *testing.T) {
	typ, err := probe.Lookup("exec")
	if err != nil {
		t.Fatal(err)
	}
	got, err := typ.Check(map[string]any{"command": []any{"x"}})
	if err != nil {
		t.Fatal(err)
	}
	want := probe.Params{"command": []string{"x"}, "timeout": "10s"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("params (-want +got):\n%s", diff)
	}
	if custom.DefaultExecTimeout.String() != "10s" || custom.MaxExecOutput != 1<<20 {
		t.Errorf("limits: got %s and %d, want 10s and 1 MiB", custom.DefaultExecTimeout, custom.MaxExecOutput)
	}
}
