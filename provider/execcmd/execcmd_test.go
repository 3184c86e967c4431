package execcmd

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/proc/proctest"
	"github.com/promptcanary/promptcanary/provider"
)

// secret is the value of AGENT_KEY in tests; it must never appear in an
// error.
const secret = "agent-key-7c41d09e2b"

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// quote single-quotes s for a command line.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// open opens "exec/<test binary> extra" in helper mode with more env.
func open(t *testing.T, mode, extra string, more map[string]any) provider.Provider {
	t.Helper()
	e := map[string]any{helperEnv: mode, "AGENT_KEY": "${AGENT_KEY}"}
	for k, v := range more {
		e[k] = v
	}
	spec := "exec/" + quote(proctest.Self(t))
	if extra != "" {
		spec += " " + extra
	}
	p, err := provider.Open(spec, provider.Options{
		Settings: map[string]any{"env": e},
		Getenv:   env(map[string]string{"AGENT_KEY": secret}),
	})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func simpleRequest(text string) *provider.Request {
	return &provider.Request{Prompt: &promptcanary.Prompt{ID: "p", Text: text}}
}

func TestRequestOnStdin(t *testing.T) {
	p := open(t, "echo", "", nil)
	seed := int64(7)
	req := &provider.Request{
		Prompt: &promptcanary.Prompt{
			ID: "weather", Text: "Weather in \"Paris\"?\nAnswer </b> & more", SystemPrompt: "Use tools.",
			Tools: []promptcanary.Tool{{Name: "get_weather", Description: "Look up weather",
				Parameters: map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}}}},
			ToolChoice: "required",
		},
		Config: promptcanary.ProviderConfig{ModelID: "exec/x", Temperature: 0.2, MaxTokens: 64, Seed: &seed,
			ExtraParams: map[string]any{"mode": "strict"}},
		Sample: 2,
	}
	resp, err := p.Generate(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(resp.Content, "}\n") || strings.Count(resp.Content, "\n") != 1 {
		t.Errorf("got stdin %q, want one line of JSON ending in a newline", resp.Content)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(resp.Content), &got); err != nil {
		t.Fatalf("stdin %q is not JSON: %v", resp.Content, err)
	}
	want := map[string]any{
		"prompt_id": "weather", "prompt": "Weather in \"Paris\"?\nAnswer </b> & more", "system": "Use tools.",
		"messages": []any{map[string]any{"role": "user", "content": "Weather in \"Paris\"?\nAnswer </b> & more"}},
		"tools": []any{map[string]any{"name": "get_weather", "description": "Look up weather",
			"parameters": map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}}}},
		"tool_choice": "required", "temperature": 0.2, "max_tokens": 64.0, "seed": 7.0, "sample": 2.0,
		"extra_params": map[string]any{"mode": "strict"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("stdin mismatch (-want +got):\n%s", d)
	}
	if resp.FinishReason != "end_turn" || resp.PromptTokens != 5 || resp.CompletionTokens != 7 || resp.TotalTokens != 12 ||
		resp.ServedModel != "helper-1" || resp.SystemFingerprint != "fp_1" {
		t.Errorf("got %+v, want end_turn, 5+7=12 tokens, helper-1, fp_1", resp)
	}
	if !json.Valid(resp.RawResponse) {
		t.Errorf("got RawResponse %q, want the JSON object", resp.RawResponse)
	}
}

func TestRequestDefaults(t *testing.T) {
	p := open(t, "echo", "", nil)
	resp, err := p.Generate(context.Background(), simpleRequest("hi"))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"prompt_id":"p","prompt":"hi","system":"","messages":[{"role":"user","content":"hi"}],"tools":[],"tool_choice":"","temperature":0,"max_tokens":0,"seed":null,"sample":0,"extra_params":{}}` + "\n"
	if resp.Content != want {
		t.Errorf("got stdin %s, want %s", resp.Content, want)
	}
}

func TestOutput(t *testing.T) {
	tests := []struct {
		name    string
		out     string
		want    *promptcanary.Response
		wantRaw bool
		wantErr string
	}{
		{name: "plain text", out: "Paris\n", want: &promptcanary.Response{Content: "Paris"}},
		{name: "plain text crlf", out: "Paris\r\n", want: &promptcanary.Response{Content: "Paris"}},
		{name: "only one newline removed", out: "two\n\n", want: &promptcanary.Response{Content: "two\n"}},
		{name: "no trailing newline", out: "  spaced  ", want: &promptcanary.Response{Content: "  spaced  "}},
		{name: "empty", out: "", want: &promptcanary.Response{}},
		{name: "JSON object without content", out: `{"answer":"x"}` + "\n", want: &promptcanary.Response{Content: `{"answer":"x"}`}},
		{name: "JSON array", out: `["content"]`, want: &promptcanary.Response{Content: `["content"]`}},
		{name: "truncated JSON is text", out: `{"content":"x"`, want: &promptcanary.Response{Content: `{"content":"x"`}},
		{name: "response object", wantRaw: true,
			out: `{"content":"hi","finish_reason":"length","prompt_tokens":3,"completion_tokens":4,"model":"m-1","system_fingerprint":"fp","response_id":"r1","extra":[1]}`,
			want: &promptcanary.Response{Content: "hi", FinishReason: "length", PromptTokens: 3, CompletionTokens: 4, TotalTokens: 7,
				ServedModel: "m-1", SystemFingerprint: "fp", ResponseID: "r1"}},
		{name: "response object padded", out: "\n  {\"content\": \"padded\", \"total_tokens\": 9}  \n", wantRaw: true,
			want: &promptcanary.Response{Content: "padded", FinishReason: "stop", TotalTokens: 9}},
		{name: "tool calls", wantRaw: true,
			out: `{"content":null,"tool_calls":[{"id":"c1","name":"get_weather","arguments":"{\"city\":\"Paris\"}"},{"name":"raw","arguments":"not json"},{"name":"obj","arguments":{"a":1}}]}`,
			want: &promptcanary.Response{FinishReason: "tool_calls", ToolCalls: []promptcanary.ToolCall{
				{ID: "c1", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris"}`)},
				{Name: "raw", Arguments: json.RawMessage(`"not json"`)},
				{Name: "obj", Arguments: json.RawMessage(`{"a":1}`)},
			}}},
		{name: "content not a string", out: `{"content":5}`, wantErr: "stdout: content must be a string"},
		{name: "negative tokens read as 0", out: `{"content":"x","prompt_tokens":-1,"completion_tokens":2}`, wantRaw: true,
			want: &promptcanary.Response{Content: "x", FinishReason: "stop", CompletionTokens: 2, TotalTokens: 2}},
		{name: "fractional tokens", out: `{"content":"x","prompt_tokens":1.5}`, wantErr: "stdout: prompt_tokens must be a non-negative integer"},
		{name: "string tokens", out: `{"content":"x","completion_tokens":"3"}`, wantErr: "stdout: completion_tokens must be a non-negative integer"},
		{name: "tool call without name", out: `{"content":"x","tool_calls":[{"arguments":{}}]}`, wantErr: "stdout: tool_calls[0]: missing name"},
		{name: "tool calls not an array", out: `{"content":"x","tool_calls":{"name":"f"}}`, wantErr: "stdout: tool_calls must be an array of {name, arguments} objects"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := open(t, "print", "", map[string]any{proctest.OutEnv: tc.out})
			resp, err := p.Generate(context.Background(), simpleRequest("hi"))
			if tc.wantErr != "" {
				var pe *provider.Error
				if !errors.As(err, &pe) || pe.Message != tc.wantErr || pe.Retryable {
					t.Fatalf("got %v, want final *provider.Error %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if gotRaw := resp.RawResponse != nil; gotRaw != tc.wantRaw {
				t.Errorf("got RawResponse %q, want set %v", resp.RawResponse, tc.wantRaw)
			}
			resp.RawResponse = nil
			if d := cmp.Diff(tc.want, resp); d != "" {
				t.Errorf("response mismatch (-want +got):\n%s", d)
			}
		})
	}
}

func TestExitStatus(t *testing.T) {
	tests := []struct {
		name   string
		stderr string
		code   string
		want   string
	}{
		{"last lines of stderr", "loading\nTraceback (most recent call last):\n  File \"agent.py\", line 3\n\nValueError: bad key $AGENT_KEY\n", "3",
			`exit status 3: Traceback (most recent call last):; File "agent.py", line 3; ValueError: bad key [REDACTED]`},
		{"no stderr", "", "1", "exit status 1"},
		{"key-shaped value redacted", "auth failed with sk-proj-abcdefghijklmnop", "2", "exit status 2: auth failed with [REDACTED]"},
		{"long stderr keeps the tail", strings.Repeat("noise line\n", 2000) + "final: boom\n", "4", "exit status 4: noise line; noise line; final: boom"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := open(t, "fail", "", map[string]any{proctest.ErrEnv: tc.stderr, proctest.CodeEnv: tc.code})
			_, err := p.Generate(context.Background(), simpleRequest("hi"))
			var pe *provider.Error
			if !errors.As(err, &pe) {
				t.Fatalf("got %v, want *provider.Error", err)
			}
			if pe.Message != tc.want || pe.Retryable {
				t.Errorf("got %q retryable %v, want %q retryable false", pe.Message, pe.Retryable, tc.want)
			}
			if strings.Contains(err.Error(), secret) {
				t.Errorf("error %q leaks the secret", err)
			}
		})
	}
}

func TestDeadlineKillsCommand(t *testing.T) {
	p := open(t, "sleep", "", nil)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := p.Generate(ctx, simpleRequest("hi"))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("got %v, want context.DeadlineExceeded", err)
	}
}

func TestCancelledBeforeStart(t *testing.T) {
	p := open(t, "echo", "", nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := p.Generate(ctx, simpleRequest("hi"))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
}

func TestHugeOutput(t *testing.T) {
	p := open(t, "huge", "", nil)
	_, err := p.Generate(context.Background(), simpleRequest("hi"))
	var pe *provider.Error
	if !errors.As(err, &pe) || pe.Message != "output larger than 32 MiB" || pe.Retryable {
		t.Errorf("got %v, want final *provider.Error %q", err, "output larger than 32 MiB")
	}
}

func TestCommandIgnoringStdin(t *testing.T) {
	p := open(t, "no-stdin", "", nil)
	resp, err := p.Generate(context.Background(), simpleRequest(strings.Repeat("long prompt ", 200_000)))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Content != "did not read" {
		t.Errorf("got %q, want %q", resp.Content, "did not read")
	}
}

// inspected is what the inspect helper reports.
type inspected struct {
	Args []string
	Dir  string
	Env  string
}

func inspect(t *testing.T, p provider.Provider) inspected {
	t.Helper()
	resp, err := p.Generate(context.Background(), simpleRequest("hi"))
	if err != nil {
		t.Fatal(err)
	}
	var got inspected
	if err := json.Unmarshal([]byte(resp.Content), &got); err != nil {
		t.Fatalf("inspect output %q: %v", resp.Content, err)
	}
	return got
}

// binDir returns a directory holding a link to the test binary under name.
func binDir(t *testing.T, name string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(proctest.Self(t), filepath.Join(dir, "bin", name)); err != nil {
		t.Skipf("symlinks not available: %v", err)
	}
	return dir
}

func TestCommandResolution(t *testing.T) {
	base := binDir(t, "my agent")
	if err := os.Mkdir(filepath.Join(base, "work"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", filepath.Join(base, "bin"))
	t.Setenv("EXECCMD_INHERITED", "from-parent")
	tests := []struct {
		name     string
		spec     string
		settings map[string]any
		want     inspected
	}{
		{
			name: "bare name through PATH with quoting",
			spec: `exec/"my agent" --flag 'a b'`,
			want: inspected{Args: []string{"my agent", "--flag", "a b"}, Env: "from-parent"},
		},
		{
			name:     "relative path against the base directory, args appended",
			spec:     `exec/./bin/my\ agent -v`,
			settings: map[string]any{"args": []any{"--port", 8080, true}},
			want:     inspected{Args: []string{"./bin/my agent", "-v", "--port", "8080", "true"}, Env: "from-parent"},
		},
		{
			name:     "working directory relative to the base directory",
			spec:     `exec/bin/"my agent"`,
			settings: map[string]any{"dir": "work"},
			want:     inspected{Args: []string{"bin/my agent"}, Dir: filepath.Join(base, "work"), Env: "from-parent"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			settings := map[string]any{"env": map[string]any{helperEnv: "inspect", "EXECCMD_SHOW": "EXECCMD_INHERITED"}}
			for k, v := range tc.settings {
				settings[k] = v
			}
			p, err := provider.Open(tc.spec, provider.Options{BaseDir: base, Settings: settings, Getenv: env(nil)})
			if err != nil {
				t.Fatal(err)
			}
			got := inspect(t, p)
			if tc.want.Dir == "" {
				got.Dir = ""
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("mismatch (-want +got):\n%s", d)
			}
		})
	}
}

func TestEnvSubstitution(t *testing.T) {
	p, err := provider.Open("exec/"+quote(proctest.Self(t)), provider.Options{
		Settings: map[string]any{"env": map[string]any{
			helperEnv: "inspect", "EXECCMD_SHOW": "GREETING", "GREETING": "hello ${WHO}, port ${PORT}",
		}},
		Getenv: env(map[string]string{"WHO": "canary", "PORT": "8080"}),
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := inspect(t, p).Env; got != "hello canary, port 8080" {
		t.Errorf("got %q, want %q", got, "hello canary, port 8080")
	}
}

func TestOpenInvalid(t *testing.T) {
	base := binDir(t, "agent")
	if err := os.WriteFile(filepath.Join(base, "notexec.sh"), []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		spec     string
		settings map[string]any
		want     string
	}{
		{"missing bare command", "exec/definitely-not-a-command-9f3", nil,
			`command "definitely-not-a-command-9f3" not found in PATH`},
		{"missing relative command", "exec/./nope.sh", nil,
			`command "./nope.sh": no such file (looked for ` + filepath.Join(base, "nope.sh") + ")"},
		{"directory", "exec/./bin", nil, `command "./bin" is a directory`},
		{"not executable", "exec/./notexec.sh", nil,
			`command "./notexec.sh" is not executable (chmod +x ` + filepath.Join(base, "notexec.sh") + ")"},
		{"unterminated quote", `exec/./bin/agent 'oops`, nil, "parse command: unterminated single quote at byte 12"},
		{"shell pipeline", `exec/./bin/agent | jq .`, nil,
			`parse command: unquoted '|' at byte 12: the command is not run through a shell, so quote it or put the pipeline in a script`},
		{"unknown key", "exec/./bin/agent", map[string]any{"arg": []any{"x"}, "cwd": "."},
			`unknown key "arg" (did you mean args?)` + "\n" + `unknown key "cwd"`},
		{"wrong types", "exec/./bin/agent", map[string]any{"args": "--flag", "dir": 3.5, "env": []any{"A=b"}},
			"args: want a list, such as [--flag, value], got a string\nenv: want a mapping of names to values, got a list"},
		{"arg not scalar", "exec/./bin/agent", map[string]any{"args": []any{"ok", map[string]any{"a": 1}}}, "args[1]: want a string, got a mapping"},
		{"missing env var", "exec/./bin/agent", map[string]any{"env": map[string]any{"KEY": "${AGENT_KEY}", "B": "${ALSO_MISSING}"}},
			"env B: environment variable ALSO_MISSING is not set\nenv KEY: environment variable AGENT_KEY is not set"},
		{"missing dir", "exec/./bin/agent", map[string]any{"dir": "nowhere"}, `dir "nowhere": no such directory`},
		{"dir is a file", "exec/./bin/agent", map[string]any{"dir": "notexec.sh"}, `dir "notexec.sh": not a directory`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := provider.Open(tc.spec, provider.Options{BaseDir: base, Settings: tc.settings, Getenv: env(nil)})
			want := "open provider " + tc.spec + ": " + tc.want
			if err == nil || err.Error() != want {
				t.Errorf("got error\n%v\nwant\n%s", err, want)
			}
		})
	}
}

func TestTimeoutSettingIsAccepted(t *testing.T) {
	cfg, err := ParseSettings(map[string]any{"timeout": "30s", "args": []any{"-x"}})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(Config{Args: []string{"-x"}}, cfg); d != "" {
		t.Errorf("config mismatch (-want +got):\n%s", d)
	}
}

func TestNew(t *testing.T) {
	argv := []string{proctest.Self(t), "a"}
	c, err := New(argv, Config{Args: []string{"b"}, Env: map[string]string{helperEnv: "inspect"}}, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := c.Argv(), []string{proctest.Self(t), "a", "b"}; !cmp.Equal(got, want) {
		t.Errorf("got argv %q, want %q", got, want)
	}
	if got := inspect(t, c).Args; !cmp.Equal(got, []string{proctest.Self(t), "a", "b"}) {
		t.Errorf("got args %q, want the command and a b", got)
	}
	if argv[1] != "a" || len(argv) != 2 {
		t.Errorf("New modified its argv argument: %q", argv)
	}
	if _, err := New(nil, Config{}, "", nil); err == nil || err.Error() != "empty command" {
		t.Errorf("got %v, want error %q", err, "empty command")
	}
}

func TestGenerateWithoutPrompt(t *testing.T) {
	p := open(t, "echo", "", nil)
	_, err := p.Generate(context.Background(), &provider.Request{})
	var pe *provider.Error
	if !errors.As(err, &pe) || pe.Retryable {
		t.Errorf("got %v, want a final *provider.Error", err)
	}
}

// TestOutputReadThroughTheBound: a command's answer is cut to the call's
// bound as it is read, and the bound records how large it was; a command
// that never stops writing still fails at MaxOutput.
func TestOutputReadThroughTheBound(t *testing.T) {
	out := strings.Repeat("é", 3000)
	p := open(t, "print", "", map[string]any{proctest.OutEnv: out})
	b := &provider.Bound{Max: 1001}
	resp, err := p.Generate(provider.WithBound(context.Background(), b), simpleRequest("hi"))
	if err != nil {
		t.Fatal(err)
	}
	// The character that reaches past the bound is kept whole; the run
	// engine cuts the answer to the bound itself.
	if resp.Content != strings.Repeat("é", 501) {
		t.Errorf("got %d bytes of content, want the first 501 characters", len(resp.Content))
	}
	if cut, original := b.Cut(); !cut || original != int64(len(out)) {
		t.Errorf("got cut %v of %d bytes, want a cut of %d", cut, original, len(out))
	}
	p = open(t, "huge", "", nil)
	_, err = p.Generate(provider.WithBound(context.Background(), &provider.Bound{Max: 1000}), simpleRequest("hi"))
	var pe *provider.Error
	if !errors.As(err, &pe) || pe.Message != "output larger than 32 MiB" {
		t.Errorf("got %v, want %q", err, "output larger than 32 MiB")
	}
}

// TestConversationOnStdin checks that a conversation with a tool result
// and a structured output request reach the command whole, and that a
// null extra parameter removes its key.
func TestConversationOnStdin(t *testing.T) {
	p := open(t, "echo", "", nil)
	req := &provider.Request{
		Prompt: &promptcanary.Prompt{
			ID: "umbrella", SystemPrompt: "Be brief.",
			Tools: []promptcanary.Tool{{Name: "get_weather"}},
			Messages: []promptcanary.Message{
				{Role: "user", Content: "Umbrella in Paris?"},
				{Role: "assistant", ToolCalls: []promptcanary.ToolCall{{ID: "call_1", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris"}`)}}},
				{Role: "tool", ToolCallID: "call_1", Name: "get_weather", Content: "rain <12mm>"},
			},
			ResponseFormat: &promptcanary.ResponseFormat{Type: "json_schema", Name: "advice", Strict: true,
				Schema: map[string]any{"type": "object", "required": []any{"umbrella"}}},
		},
		Config: promptcanary.ProviderConfig{Temperature: 0.5, ExtraParams: map[string]any{"temperature": nil, "mode": "x"}},
	}
	resp, err := p.Generate(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"extra_params":{"mode":"x"},"max_tokens":0,` +
		`"messages":[{"role":"user","content":"Umbrella in Paris?"},` +
		`{"role":"assistant","tool_calls":[{"id":"call_1","name":"get_weather","arguments":{"city":"Paris"}}]},` +
		`{"role":"tool","content":"rain <12mm>","tool_call_id":"call_1","name":"get_weather"}],` +
		`"prompt":"","prompt_id":"umbrella",` +
		`"response_format":{"type":"json_schema","name":"advice","schema":{"required":["umbrella"],"type":"object"},"strict":true},` +
		`"sample":0,"seed":null,"system":"Be brief.","tool_choice":"","tools":[{"name":"get_weather"}]}` + "\n"
	if resp.Content != want {
		t.Errorf("stdin:\ngot  %s\nwant %s", resp.Content, want)
	}
}
