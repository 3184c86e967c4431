// Package execcmd is the provider that runs a command for every call:
// "exec/COMMAND" canaries an application that is easiest to reach as a
// program (an agent script, a CLI, a test harness). It registers itself
// as "exec".
//
//	providers:
//	  - id: exec/python3 agent.py --mode 'strict json'
//	    args: [--verbose]   # optional: appended to the command line
//	    dir: app            # optional: working directory, relative to canary.yaml
//	    env:                # optional: added to the inherited environment
//	      AGENT_KEY: ${AGENT_KEY}
//
// COMMAND is split into arguments with shell-like quoting (see
// SplitCommand) but never run through a shell. A command path with a slash
// is resolved against the directory of canary.yaml; a bare name is looked
// up in PATH. A missing command is an error when the provider is opened.
// The working directory is inherited unless dir is set.
//
// Each call runs the command once and writes the request to its stdin as
// one line of JSON, then closes stdin:
//
//	{"prompt_id": "capital", "prompt": "Capital of France?", "system": "",
//	 "messages": [{"role": "user", "content": "Capital of France?"}],
//	 "tools": [], "tool_choice": "", "temperature": 0, "max_tokens": 256,
//	 "seed": null, "sample": 0, "extra_params": {}}
//
// "messages" is the whole conversation the model answers: the prompt's
// text as the first user turn, then its messages: turns ({"role",
// "content"}, an assistant's "tool_calls" [{"id", "name", "arguments"}],
// a tool result's "tool_call_id" and "name"); the system prompt stays in
// "system". A prompt that asks for structured output adds
// "response_format": {"type": "json_schema", "name", "schema", "strict"}
// or {"type": "json_object"}. An extra parameter set to null removes that
// key from extra_params and from the request (temperature: null leaves
// "temperature" out).
//
// When stdout holds a JSON object with a "content" key it is read like a
// replay line: content, finish_reason, tool_calls ([{"name", "arguments",
// "id"}]), prompt_tokens, completion_tokens, total_tokens, model,
// system_fingerprint and response_id, other keys being ignored; a missing
// finish_reason is "stop", or "tool_calls" when there are tool calls.
// Otherwise the whole of stdout, less one trailing newline, is the answer.
// Stdout is limited to MaxOutput bytes.
//
// A non-zero exit is a final *provider.Error naming the exit status and
// the last lines of stderr, with the env values and anything shaped like
// an API key redacted. When the context is cancelled or its deadline
// passes, the command and its process group are killed and Generate
// returns the context's error. On Unix the process group is killed when
// the call ends however it ends, so what the command left running in the
// background (holding stdout or not) never outlives the call. On Linux
// the kernel also kills the command when the process running it dies,
// even by kill -9 (what the command started in the background is then
// left to it).
package execcmd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/httpc"
	"github.com/promptcanary/promptcanary/internal/proc"
	"github.com/promptcanary/promptcanary/internal/redact"
	"github.com/promptcanary/promptcanary/internal/suggest"
	"github.com/promptcanary/promptcanary/provider"
	"github.com/promptcanary/promptcanary/provider/internal/clip"
	"github.com/promptcanary/promptcanary/provider/internal/setting"
)

// MaxOutput bounds the stdout of one call (32 MiB).
const MaxOutput = 32 << 20

// stderrTail is how much of the end of stderr is kept for error messages.
const stderrTail = 4 << 10

func init() {
	provider.Register("exec", Open)
	provider.RegisterChecker("exec", Check)
	provider.Declare("exec", provider.Capabilities{Free: true})
}

// Config holds the optional settings of an exec provider.
type Config struct {
	// Args are appended to the arguments of the command line.
	Args []string
	// Dir is the working directory; a relative path is resolved against
	// the base directory. "" inherits the working directory.
	Dir string
	// Env is added to the inherited environment. ${NAME} in a value is
	// replaced by the variable NAME, and the result is kept out of errors.
	Env map[string]string
	// Secrets, when set, receives the values substituted for ${NAME}, and
	// redacts them from errors; nil keeps them private.
	Secrets *redact.Set
}

// settingKeys are the keys of the settings; "timeout" belongs to the run
// engine and is accepted here without being read.
var settingKeys = []string{"args", "dir", "env", "timeout"}

// Client runs one command per call. It is safe for concurrent use: it is
// never modified after New.
type Client struct {
	path    string   // resolved executable
	argv    []string // argv[0] as written, then the arguments
	dir     string
	env     []string // nil: inherit
	secrets *redact.Set
}

var _ provider.Provider = (*Client)(nil)

// Open opens "exec/COMMAND".
func Open(model string, opts provider.Options) (provider.Provider, error) {
	argv, err := proc.SplitCommand(model)
	if err != nil {
		return nil, fmt.Errorf("parse command: %w", err)
	}
	cfg, err := ParseSettings(opts.Settings)
	if err != nil {
		return nil, err
	}
	cfg.Secrets = opts.Secrets
	return New(argv, cfg, opts.BaseDir, opts.Env)
}

// Check checks the command line and settings as Open does, with the same
// messages (the command must exist, the directory too), but needs none of
// the variables named by ${NAME} in env and runs nothing.
func Check(model string, opts provider.Options) error {
	argv, err := proc.SplitCommand(model)
	if err != nil {
		return fmt.Errorf("parse command: %w", err)
	}
	cfg, err := ParseSettings(opts.Settings)
	if err != nil {
		return err
	}
	_, err = New(argv, cfg, opts.BaseDir, func(name string) string {
		if v := opts.Env(name); v != "" {
			return v
		}
		return "unset"
	})
	return err
}

// ParseSettings reads the optional settings of an exec provider (decoded
// YAML): args, dir and env. It reports every problem at once.
func ParseSettings(settings map[string]any) (Config, error) {
	var (
		cfg  Config
		errs []error
	)
	for _, k := range setting.Keys(settings) {
		if !slices.Contains(settingKeys, k) {
			errs = append(errs, fmt.Errorf("unknown key %q%s", k, suggest.Hint(k, settingKeys)))
		}
	}
	if v, ok := settings["args"]; ok && v != nil {
		items, ok := v.([]any)
		if !ok {
			errs = append(errs, fmt.Errorf("args: want a list, such as [--flag, value], got %s", setting.YAMLWords.TypeName(v)))
		}
		for i, item := range items {
			s, err := setting.YAMLWords.Scalar(item)
			if err != nil {
				errs = append(errs, fmt.Errorf("args[%d]: %w", i, err))
				continue
			}
			cfg.Args = append(cfg.Args, s)
		}
	}
	if v, ok := settings["dir"]; ok && v != nil {
		s, err := setting.YAMLWords.Scalar(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("dir: %w", err))
		}
		cfg.Dir = s
	}
	if v, ok := settings["env"]; ok && v != nil {
		m, ok := v.(map[string]any)
		if !ok {
			errs = append(errs, fmt.Errorf("env: want a mapping of names to values, got %s", setting.YAMLWords.TypeName(v)))
		}
		for _, k := range setting.Keys(m) {
			s, err := setting.YAMLWords.Scalar(m[k])
			if err != nil {
				errs = append(errs, fmt.Errorf("env.%s: %w", k, err))
				continue
			}
			if cfg.Env == nil {
				cfg.Env = make(map[string]string, len(m))
			}
			cfg.Env[k] = s
		}
	}
	if len(errs) > 0 {
		return Config{}, errors.Join(errs...)
	}
	return cfg, nil
}

// New returns a client running argv (the command and its arguments) with
// cfg.Args appended. A relative command path with a slash and a relative
// cfg.Dir are resolved against baseDir when it is set; a bare command name
// is looked up in PATH. getenv reads the variables named by ${NAME} in
// cfg.Env; nil means os.Getenv.
func New(argv []string, cfg Config, baseDir string, getenv func(string) string) (*Client, error) {
	if len(argv) == 0 || argv[0] == "" {
		return nil, errors.New("empty command")
	}
	if getenv == nil {
		getenv = os.Getenv
	}
	var errs []error
	c := &Client{argv: append(slices.Clip(argv), cfg.Args...), secrets: httpc.Secrets(cfg.Secrets)}

	path, err := proc.Resolve(argv[0], baseDir)
	if err != nil {
		errs = append(errs, err)
	}
	c.path = path

	if cfg.Dir != "" {
		dir := cfg.Dir
		if !filepath.IsAbs(dir) && baseDir != "" {
			dir = filepath.Join(baseDir, dir)
		}
		if abs, err := filepath.Abs(dir); err == nil {
			dir = abs
		}
		if fi, err := os.Stat(dir); err != nil {
			errs = append(errs, fmt.Errorf("dir %q: no such directory", cfg.Dir))
		} else if !fi.IsDir() {
			errs = append(errs, fmt.Errorf("dir %q: not a directory", cfg.Dir))
		}
		c.dir = dir
	}

	if len(cfg.Env) > 0 {
		extra := make([]string, 0, len(cfg.Env))
		for _, k := range setting.Keys(cfg.Env) {
			if k == "" || strings.ContainsAny(k, "=\x00") {
				errs = append(errs, fmt.Errorf("env %q: invalid variable name", k))
				continue
			}
			v, used, err := setting.ExpandEnv(cfg.Env[k], getenv)
			if err != nil {
				errs = append(errs, fmt.Errorf("env %s: %w", k, err))
				continue
			}
			if strings.ContainsRune(v, 0) {
				errs = append(errs, fmt.Errorf("env %s: value contains NUL", k))
				continue
			}
			c.secrets.Add(used...)
			extra = append(extra, k+"="+v)
		}
		c.env = append(os.Environ(), extra...)
	}

	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return c, nil
}

// SplitCommand splits a command line into its arguments as "exec/COMMAND"
// is split: with the quoting rules of a POSIX shell, without ever running
// one. There is no variable expansion, globbing or ~, and the shell
// operators | & ; < > and ` are errors unless quoted.
func SplitCommand(s string) ([]string, error) { return proc.SplitCommand(s) }

// Argv returns the command and arguments each call runs.
func (c *Client) Argv() []string { return slices.Clone(c.argv) }

// request is what the command reads on stdin.
type request struct {
	PromptID    string                       `json:"prompt_id"`
	Prompt      string                       `json:"prompt"`
	System      string                       `json:"system"`
	Messages    []promptcanary.Message       `json:"messages"`
	Format      *promptcanary.ResponseFormat `json:"response_format,omitempty"`
	Tools       []promptcanary.Tool          `json:"tools"`
	ToolChoice  string                       `json:"tool_choice"`
	Temperature float64                      `json:"temperature"`
	MaxTokens   int                          `json:"max_tokens"`
	Seed        *int64                       `json:"seed"`
	Sample      int                          `json:"sample"`
	ExtraParams map[string]any               `json:"extra_params"`
}

// encodeRequest writes the one line of JSON the command reads.
func encodeRequest(req *provider.Request) (*bytes.Buffer, error) {
	in := request{
		PromptID:    req.Prompt.ID,
		Prompt:      req.Prompt.Text,
		System:      req.Prompt.SystemPrompt,
		Messages:    req.Prompt.Conversation(),
		Format:      req.Prompt.ResponseFormat,
		Tools:       req.Prompt.Tools,
		ToolChoice:  req.Prompt.ToolChoice,
		Temperature: req.Config.Temperature,
		MaxTokens:   req.Config.MaxTokens,
		Seed:        req.Config.Seed,
		Sample:      req.Sample,
		ExtraParams: map[string]any{},
	}
	if in.Tools == nil {
		in.Tools = []promptcanary.Tool{}
	}
	var removed []string
	for k, v := range req.Config.ExtraParams {
		if v == nil {
			removed = append(removed, k)
			continue
		}
		in.ExtraParams[k] = v
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	if len(removed) == 0 {
		return &out, enc.Encode(in)
	}
	// Null extra parameters remove the request's keys of that name: the
	// request goes through a map, which encodes its keys sorted.
	if err := enc.Encode(in); err != nil {
		return nil, err
	}
	var m map[string]json.RawMessage
	err := json.Unmarshal(out.Bytes(), &m)
	out.Reset()
	if err != nil {
		return nil, err
	}
	for _, k := range removed {
		if k != "prompt_id" && k != "extra_params" {
			delete(m, k)
		}
	}
	return &out, enc.Encode(m)
}

// Generate runs the command once for req. A non-zero exit is a final
// *provider.Error; cancellation returns the context's error.
func (c *Client) Generate(ctx context.Context, req *provider.Request) (*promptcanary.Response, error) {
	if req == nil || req.Prompt == nil {
		return nil, &provider.Error{Message: "exec: request has no prompt"}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	stdin, err := encodeRequest(req)
	if err != nil {
		return nil, &provider.Error{Message: c.redact("encode request: " + err.Error())}
	}

	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := proc.Command(runCtx, c.path, c.argv, c.dir, c.env)
	stdout := &proc.LimitedBuffer{Max: MaxOutput, Full: cancel}
	stderr := &proc.TailBuffer{Max: stderrTail}

	// The answer is cut to the call's bound as it streams in (see clip);
	// the command may write MaxOutput bytes in all.
	kept := clip.NewWriter(stdout, provider.BoundFrom(ctx))
	raw := &proc.LimitedWriter{W: kept, Max: MaxOutput, Full: cancel}
	err = proc.Run(cmd, stdin.Bytes(), raw, stderr)
	kept.Close()
	switch {
	case stdout.Overflowed(), raw.Overflowed():
		return nil, &provider.Error{Message: fmt.Sprintf("output larger than %d MiB", MaxOutput>>20)}
	case err == nil, errors.Is(err, exec.ErrWaitDelay) && cmd.ProcessState != nil && cmd.ProcessState.Success():
		// A leftover child holding stdout open does not fail a call whose
		// command succeeded.
		return parseOutput(stdout.Bytes())
	case ctx.Err() != nil:
		return nil, ctx.Err()
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		msg := ee.ProcessState.String()
		if tail := proc.LastLines(stderr.String(), 3); tail != "" {
			msg += ": " + tail
		}
		return nil, &provider.Error{Message: c.redact(msg)}
	}
	return nil, &provider.Error{Message: c.redact("run " + strconv.Quote(c.argv[0]) + ": " + err.Error())}
}

// redact removes the substituted env values and key-shaped strings.
func (c *Client) redact(s string) string { return httpc.RedactSet(c.secrets, s) }
