package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/promptcanary/promptcanary/check"
)

// ExitCode is what the promptcanary command exits with. Every code the
// command can return is declared here, once.
type ExitCode int

// The exit codes. When several apply, the lowest non-zero one below 130
// that says most about the verdict wins: unmeasured (3) over a tripped gate
// (1) over an output that failed (5).
const (
	// ExitOK: everything ran, every output was written and no gate tripped.
	ExitOK ExitCode = 0
	// ExitGate: a gate tripped (--fail-on-failure with a failing probe,
	// --fail-on-drift with drift at or above its threshold).
	ExitGate ExitCode = 1
	// ExitUsage: a usage or configuration error; nothing was called.
	ExitUsage ExitCode = 2
	// ExitUnmeasured: there is no verdict: every call failed, more calls
	// failed than --max-errors allows, or no pair could be compared.
	ExitUnmeasured ExitCode = 3
	// ExitInternal: an unexpected error after the command started working
	// (a bug, or the machine failing under it).
	ExitInternal ExitCode = 4
	// ExitOutput: the calls were measured and the verdict was printed, but
	// an output failed (the history, a baseline or a report file); the
	// error lines say what was saved and where.
	ExitOutput ExitCode = 5
	// ExitInterrupted: interrupted (Ctrl-C or SIGTERM): run still prints
	// and writes the reports of the calls that finished; nothing is recorded
	// in the history and no baseline is saved.
	ExitInterrupted ExitCode = 130
)

// exitCodeHelp documents the codes in --help.
const exitCodeHelp = `Exit codes:
  0    ok
  1    a gate tripped (--fail-on-failure with a failing probe, --fail-on-drift with drift)
  2    usage or configuration error (nothing was called)
  3    no verdict: nothing measured, more failed calls than --max-errors, or nothing compared
  4    internal error
  5    measured, but an output failed (history, baseline or report file); see the error lines
  130  interrupted: run prints and writes reports of what finished; nothing is recorded`

// verdict prints the outputs that failed, if any, and returns the exit
// code of a verdict as an error (nil for ok): an output that failed turns
// an ok verdict into ExitOutput and leaves any other code as it is.
func (a *app) verdict(code ExitCode, failures []error) error {
	if len(failures) > 0 {
		a.printFailures(failures)
		if code == ExitOK {
			code = ExitOutput
		}
	}
	if code != ExitOK {
		return codeErr(code)
	}
	return nil
}

// exitError carries an exit code and hints up to Main.
type exitError struct {
	code  ExitCode
	err   error
	hints []string
}

func (e *exitError) Error() string {
	if e.err == nil {
		return ""
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// usageErr is a usage or configuration error (exit 2).
func usageErr(err error, hints ...string) error {
	return &exitError{code: ExitUsage, err: err, hints: hints}
}

// codeErr returns an error that only sets the exit code; Main prints nothing
// for it because the command already reported what happened.
func codeErr(code ExitCode) error { return &exitError{code: code} }

// hinted is an error with hints for the user.
type hinted interface{ Hints() []string }

// exitCode is the code err carries: its own, 2 for a configuration
// mistake or a usage error from cobra, else 4 (unexpected).
func exitCode(err error) ExitCode {
	var ee *exitError
	switch {
	case errors.As(err, &ee):
		return ee.code
	case check.IsConfig(err), strings.HasPrefix(err.Error(), "unknown command"):
		return ExitUsage
	}
	return ExitInternal
}

// verdictCode maps a workflow verdict to its exit code.
func verdictCode(v check.Verdict) ExitCode {
	switch v {
	case check.Tripped:
		return ExitGate
	case check.Unmeasured:
		return ExitUnmeasured
	case check.Pass:
		return ExitOK
	}
	panic(fmt.Sprintf("cli: unknown verdict %d", v))
}
