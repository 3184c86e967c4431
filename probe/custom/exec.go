package custom

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/envvar"
	"github.com/promptcanary/promptcanary/internal/proc"
	"github.com/promptcanary/promptcanary/internal/redact"
	"github.com/promptcanary/promptcanary/probe"
	"github.com/promptcanary/promptcanary/probe/internal/text"
)

// Limits of an exec probe.
const (
	// DefaultExecTimeout is how long a command may take on one response
	// unless the probe sets timeout.
	DefaultExecTimeout = 10 * time.Second
	// MaxExecTimeout bounds timeout.
	MaxExecTimeout = 5 * time.Minute
	// MinExecTimeout is the shortest timeout: less than a process takes to
	// start would fail every result.
	MinExecTimeout = 100 * time.Millisecond
	// MaxExecOutput bounds what a command may write on stdout (1 MiB).
	MaxExecOutput = 1 << 20
	// maxExecDetails bounds the details a command writes, in characters.
	maxExecDetails = 4000
	// stderrKept is how much of the end of stderr is kept, and
	// stderrShown how much of it the details and metadata quote.
	stderrKept  = 8 << 10
	stderrShown = 1000
	// outputShown is how much of an unreadable stdout the details quote.
	outputShown = 200
)

// Exec judges a response with an external command, in any language. The
// command is run once per response, never through a shell, with the
// prompt and the response as one JSON object on stdin:
//
//	{"prompt": {"id": "capital", "text": "Capital of France?", "tags": ["geo"], …},
//	 "response": {"content": "Paris.", "finish_reason": "stop", "tool_calls": [{"name": …, "arguments": {…}}],
//	              "prompt_tokens": 12, "completion_tokens": 3, "total_tokens": 15, "latency_ms": 812.5, …}}
//
// (the fields of promptcanary.Prompt and promptcanary.Response as the run
// history stores them, less the provider's raw_response), and it must exit
// 0 having written one JSON object on stdout:
//
//	{"passed": true, "score": 0.9, "details": "2 citations", "metadata": {"citations": 2}}
//
// passed is required; score defaults to 1 when passed and 0 otherwise and
// must lie in [0,1]; details (a sentence for the report) and metadata (an
// object of diagnostic values) are optional. Other keys are an error, so a
// misspelt key is not silently ignored. A check that fails a response
// says so with "passed": false and exits 0.
//
// A command that cannot start, runs past its timeout, exits non-zero,
// writes more than MaxExecOutput bytes on stdout or anything but that
// object yields a failed result with score 0 whose details say what went
// wrong, quoting the end of stderr. On timeout, and on Unix whenever the
// call ends, the command's whole process group is killed, so nothing it
// started outlives the call.
//
// Commands run concurrently: the runner judges each response inside the
// goroutine of its call, so as many commands run at once as the run has
// calls in flight (--concurrency, or a provider's concurrency:). Each one
// costs a process start on top of its own work (BenchmarkExec measures
// it), so a suite that judges many responses is faster with expr where
// an expression can say the same.
//
// command is a list, [python3, checks/tone.py], or one string,
// "python3 checks/tone.py", split into arguments with shell-like quoting
// as the exec provider splits its command line.
//
// A command path with a slash and dir are resolved against the directory
// of canary.yaml, whatever the working directory; a bare command name is
// looked up in PATH. Without dir the command runs in promptcanary's
// working directory.
type Exec struct {
	argv    []string // argv[0] as written, then the arguments
	path    string   // the resolved executable
	dir     string   // "" inherits the working directory
	env     []string // nil inherits the environment
	timeout time.Duration
	secrets *redact.Set // the values substituted for ${NAME} in env
}

var (
	_ probe.Probe = (*Exec)(nil)
)

const execDescription = "Judges the response with an external command that reads the prompt and response as JSON on stdin and writes its verdict as JSON on stdout."

func init() {
	probe.Register(probe.Type{
		ID:          "exec",
		Name:        "External Command",
		Category:    promptcanary.CategoryCustom,
		Description: execDescription,
		Example: `probes:
  - type: exec
    id: citations
    # any language: the command reads {"prompt", "response"} as JSON on
    # stdin and writes {"passed", "score", "details", "metadata"} on stdout
    command: [go, run, ./checks/citations, --min, "2"]
    timeout: 30s
    env:
      CHECK_MODE: strict
      CHECK_CACHE: ${HOME}/.cache/canary-checks
    dir: .   # relative to canary.yaml, like a command path with a slash
`,
		Params: []probe.Param{
			{Name: "command", Kind: probe.Command, Required: true,
				Doc: "the program and its arguments, for example [python3, checks/tone.py] or \"python3 checks/tone.py\" (split with shell-like quoting); never run through a shell"},
			{Name: "timeout", Kind: probe.String, Default: DefaultExecTimeout.String(),
				Doc: "how long the command may take on one response, at most 5m; then it is killed and the result fails"},
			{Name: "env", Kind: probe.Map,
				Doc: "variables added to the inherited environment; ${NAME} in a value is replaced by the variable NAME"},
			{Name: "dir", Kind: probe.String,
				Doc: "the working directory of the command, relative to canary.yaml (default: promptcanary's working directory)"},
		},
		NewIn:    func(p probe.Params, env probe.Env) (probe.Probe, error) { return newExec(p, env.Dir) },
		External: true,
	})
}

// newExec builds an exec probe from checked parameters. Relative paths are
// resolved against baseDir, the directory of canary.yaml (the working
// directory when it is "").
func newExec(p probe.Params, baseDir string) (*Exec, error) {
	e := &Exec{timeout: DefaultExecTimeout}
	errs := e.setCommand(p, baseDir)
	if p.Has("timeout") {
		if err := e.setTimeout(p.String("timeout")); err != nil {
			errs = append(errs, err)
		}
	}
	if p.Has("dir") {
		if err := e.setDir(p.String("dir"), baseDir); err != nil {
			errs = append(errs, err)
		}
	}
	if env := p.Map("env"); p.Has("env") {
		extra, secrets, envErrs := execEnv(env, os.Getenv)
		errs = append(errs, envErrs...)
		e.secrets = redact.New(secrets...)
		e.env = append(os.Environ(), extra...)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return e, nil
}

// setCommand sets the command to run from the command parameter, a list,
// or a string split with shell-like quoting (proc.SplitCommand) as the
// exec provider splits its command line. The program is resolved against
// baseDir.
func (e *Exec) setCommand(p probe.Params, baseDir string) []error {
	var errs []error
	argv := p.Strings("command")
	if s, ok := p["command"].(string); ok {
		var err error
		if argv, err = proc.SplitCommand(s); err != nil {
			errs = append(errs, &probe.ParamError{Param: "command", Msg: err.Error(),
				Hint: "write the command as a list, for example [python3, checks/tone.py]"})
		}
	}
	switch {
	case len(argv) == 0:
		if len(errs) == 0 {
			errs = append(errs, &probe.ParamError{Param: "command", Msg: "must not be empty",
				Hint: "name the program and its arguments, for example [python3, checks/tone.py]"})
		}
	case argv[0] == "":
		errs = append(errs, &probe.ParamError{Param: "command[0]", Msg: "the program must not be empty",
			Hint: "name the program first, for example [python3, checks/tone.py]"})
	default:
		path, err := proc.Resolve(argv[0], baseDir)
		if err != nil {
			errs = append(errs, &probe.ParamError{Param: "command[0]", Msg: err.Error(),
				Hint: "a bare name is looked up in PATH; a path with a slash is relative to the directory of canary.yaml"})
		}
		e.argv, e.path = slices.Clone(argv), path
	}
	for i, a := range argv {
		if strings.ContainsRune(a, 0) {
			errs = append(errs, &probe.ParamError{Param: fmt.Sprintf("command[%d]", i), Msg: "contains a NUL byte"})
		}
	}
	return errs
}

// setTimeout sets the timeout parameter s, a duration from MinExecTimeout
// to MaxExecTimeout.
func (e *Exec) setTimeout(s string) error {
	d, err := time.ParseDuration(s)
	switch {
	case err != nil || d <= 0:
		return &probe.ParamError{Param: "timeout", Msg: fmt.Sprintf("invalid duration %q", s),
			Hint: "a positive duration with its unit, such as 30s or 2m"}
	case d > MaxExecTimeout || d < MinExecTimeout:
		return &probe.ParamError{Param: "timeout",
			Msg:  fmt.Sprintf("out of range: got %s, allowed %s to %s", s, MinExecTimeout, "5m"),
			Hint: "use a duration from 100ms to 5m, for example 30s"}
	}
	e.timeout = d
	return nil
}

// setDir sets the working directory from the dir parameter s, relative
// to baseDir, which must be an existing directory.
func (e *Exec) setDir(s, baseDir string) error {
	dir := s
	if !filepath.IsAbs(dir) && baseDir != "" {
		dir = filepath.Join(baseDir, dir)
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	switch fi, err := os.Stat(dir); {
	case s == "":
		return &probe.ParamError{Param: "dir", Msg: "must not be empty",
			Hint: "name a directory, or remove dir to inherit promptcanary's working directory"}
	case err != nil:
		return &probe.ParamError{Param: "dir", Msg: fmt.Sprintf("no such directory %q", s),
			Hint: "dir is relative to the directory of canary.yaml"}
	case !fi.IsDir():
		return &probe.ParamError{Param: "dir", Msg: fmt.Sprintf("%q is not a directory", s)}
	}
	e.dir = dir
	return nil
}

// execEnv checks the env parameter and returns its NAME=value pairs,
// sorted, with ${NAME} references replaced by getenv, and the substituted
// values.
func execEnv(env map[string]any, getenv func(string) string) (pairs, secrets []string, errs []error) {
	names := make([]string, 0, len(env))
	for k := range env {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		param := "env." + k
		if k == "" || strings.ContainsAny(k, "=\x00") {
			errs = append(errs, &probe.ParamError{Param: param, Msg: fmt.Sprintf("invalid variable name %q", k),
				Hint: "a variable name is letters, digits and underscores"})
			continue
		}
		var v string
		switch x := env[k].(type) {
		case string:
			v = x
		case int, int64, uint64, float64, bool:
			v = fmt.Sprint(x)
		case nil:
		default:
			errs = append(errs, &probe.ParamError{Param: param, Msg: "must be a string, number or boolean",
				Hint: `quote the value, for example ` + k + `: "text"`})
			continue
		}
		v, used, err := envvar.Expand(v, getenv)
		if err != nil {
			errs = append(errs, &probe.ParamError{Param: param, Msg: err.Error(),
				Hint: "set the variable before loading the suite, or write the value itself"})
			continue
		}
		if strings.ContainsRune(v, 0) {
			errs = append(errs, &probe.ParamError{Param: param, Msg: "value contains a NUL byte"})
			continue
		}
		secrets = append(secrets, used...)
		pairs = append(pairs, k+"="+v)
	}
	return pairs, secrets, errs
}

// Argv returns the command and arguments the probe runs.
func (e *Exec) Argv() []string { return slices.Clone(e.argv) }

// execInput is what the command reads on stdin.
type execInput struct {
	Prompt   *promptcanary.Prompt   `json:"prompt"`
	Response *promptcanary.Response `json:"response"`
}

// execOutput is what the command writes on stdout.
type execOutput struct {
	Passed   *bool          `json:"passed"`
	Score    *float64       `json:"score"`
	Details  string         `json:"details"`
	Metadata map[string]any `json:"metadata"`
}

// Evaluate runs the command on one response. On success the result is the
// command's verdict, its metadata the command's metadata. Otherwise it
// fails with score 0, and the metadata holds "error" and, when the
// command wrote any, "stderr" (its last lines) and, when it exited
// non-zero, "exit_code".
// When ctx ends (the run is interrupted) the command's process group is
// killed at once, not at its timeout.
func (e *Exec) Evaluate(ctx context.Context, in probe.Input) probe.Result {
	p, r := in.OrEmpty()
	resp := *r
	resp.RawResponse = nil
	var stdin bytes.Buffer
	enc := json.NewEncoder(&stdin)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(execInput{Prompt: p, Response: &resp}); err != nil {
		return e.failure("encode the input: "+err.Error(), "", nil)
	}

	ctx, cancel := context.WithTimeout(ctx, e.timeout)
	defer cancel()
	cmd := proc.Command(ctx, e.path, e.argv, e.dir, e.env)
	stdout := &proc.LimitedBuffer{Max: MaxExecOutput, Full: cancel}
	stderr := &proc.TailBuffer{Max: stderrKept}
	err := proc.Run(cmd, stdin.Bytes(), stdout, stderr)
	tail := e.secrets.Truncate(proc.LastLines(stderr.String(), 5), stderrShown)

	switch {
	case stdout.Overflowed():
		return e.failure(fmt.Sprintf("wrote more than %d MiB on stdout", MaxExecOutput>>20), tail, nil)
	case errors.Is(ctx.Err(), context.Canceled) && (err != nil || cmd.ProcessState == nil || !cmd.ProcessState.Success()):
		return e.failure("stopped: the run was interrupted", tail, nil)
	case errors.Is(ctx.Err(), context.DeadlineExceeded) && (err != nil || cmd.ProcessState == nil || !cmd.ProcessState.Success()):
		return e.failure(fmt.Sprintf("timed out after %s", e.timeout), tail, nil)
	case err == nil, errors.Is(err, exec.ErrWaitDelay) && cmd.ProcessState != nil && cmd.ProcessState.Success():
		// A leftover child holding stdout open does not fail a command
		// that succeeded.
	default:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code := ee.ExitCode()
			return e.failure(ee.ProcessState.String(), tail, &code)
		}
		return e.failure(fmt.Sprintf("run %q: %v", e.argv[0], err), tail, nil)
	}

	out, err := parseExecOutput(stdout.Bytes())
	if err != nil {
		return e.failure(e.secrets.String(err.Error()), tail, nil)
	}
	res := probe.Result{Passed: *out.Passed, Details: e.secrets.String(out.Details), Metadata: out.Metadata}
	if out.Score != nil {
		res.Score = *out.Score
	} else if res.Passed {
		res.Score = 1
	}
	if res.Details == "" {
		res.Details = fmt.Sprintf("Command %s the response with score %.3g.", verdict(res.Passed), res.Score)
	} else if cut := text.Preview(res.Details, maxExecDetails); cut != res.Details {
		res.Details = cut + "…"
	}
	if res.Metadata == nil {
		res.Metadata = map[string]any{}
	} else if e.secrets.Len() > 0 {
		res.Metadata = e.redactMetadata(res.Metadata)
	}
	return res
}

func verdict(passed bool) string {
	if passed {
		return "passed"
	}
	return "failed"
}

// parseExecOutput reads the command's stdout: exactly one JSON object
// with the keys of execOutput, passed required, score in [0,1].
func parseExecOutput(b []byte) (*execOutput, error) {
	trimmed := bytes.TrimSpace(b)
	if len(trimmed) == 0 {
		return nil, errors.New(`wrote nothing on stdout; want a JSON object such as {"passed": true, "score": 1}`)
	}
	if trimmed[0] != '{' {
		return nil, fmt.Errorf("wrote %q on stdout; want a JSON object such as {\"passed\": true, \"score\": 1}", preview(trimmed))
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.DisallowUnknownFields()
	var out execOutput
	if err := dec.Decode(&out); err != nil {
		msg := strings.TrimPrefix(err.Error(), "json: ")
		if strings.HasPrefix(msg, "unknown field ") {
			msg += "; the keys are passed, score, details and metadata"
		}
		return nil, fmt.Errorf("wrote invalid output on stdout: %s", msg)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("wrote more than one JSON value on stdout; want one object")
	}
	if out.Passed == nil {
		return nil, errors.New(`wrote no "passed" on stdout; want true or false`)
	}
	if s := out.Score; s != nil && (math.IsNaN(*s) || *s < 0 || *s > 1) {
		return nil, fmt.Errorf("wrote score %v, outside [0,1]", *s)
	}
	return &out, nil
}

// preview returns the start of b for a message, cut to outputShown
// characters.
func preview(b []byte) string {
	s := strings.ToValidUTF8(string(b[:min(len(b), 4*outputShown)]), "\uFFFD")
	if cut := text.Preview(s, outputShown); cut != s || len(b) > 4*outputShown {
		return cut + "…"
	}
	return s
}

// failure is the result of a command that gave no verdict. code is the
// exit code of a command that exited non-zero.
func (e *Exec) failure(msg, stderr string, code *int) probe.Result {
	msg = e.secrets.String(msg)
	meta := map[string]any{"error": msg}
	details := fmt.Sprintf("Command %s failed: %s.", e.label(), msg)
	if stderr != "" {
		meta["stderr"] = stderr
		details = fmt.Sprintf("Command %s failed: %s; stderr: %s", e.label(), msg, stderr)
	}
	if code != nil {
		meta["exit_code"] = *code
	}
	return probe.Result{Details: details, Metadata: meta}
}

// label names the command in details: the program's base name and the
// arguments, cut to exprShown characters.
func (e *Exec) label() string {
	s := strings.Join(append([]string{filepath.Base(e.argv[0])}, e.argv[1:]...), " ")
	if cut := text.Preview(s, exprShown); cut != s {
		s = cut + "…"
	}
	return s
}

// redactMetadata removes the substituted env values from m.
func (e *Exec) redactMetadata(m map[string]any) map[string]any {
	b, err := json.Marshal(m)
	if err != nil {
		return map[string]any{}
	}
	var out map[string]any
	if json.Unmarshal([]byte(e.secrets.String(string(b))), &out) != nil {
		return map[string]any{}
	}
	return out
}
