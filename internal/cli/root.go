// Package cli implements the promptcanary command line: one file per
// command, each an options struct and a run function. It is the only
// package that prints to the terminal, decides exit codes and blank-imports
// the built-in probes and providers.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	// The built-in probes and providers register themselves.
	_ "github.com/promptcanary/promptcanary/probe/builtin"
	_ "github.com/promptcanary/promptcanary/provider/builtin"
)

// Exit codes of the promptcanary command.
const (
	// ExitOK: everything ran and no gate tripped.
	ExitOK = 0
	// ExitGate: a gate tripped (--fail-on-failure with a failing probe,
	// --fail-on-drift with drift).
	ExitGate = 1
	// ExitUsage: a usage or configuration error; nothing was called.
	ExitUsage = 2
	// ExitUnmeasured: the run could not be measured (more provider errors
	// than --max-errors allows).
	ExitUnmeasured = 3
	// ExitInterrupted: the run was interrupted (Ctrl-C); what finished was
	// still written.
	ExitInterrupted = 130
)

const exitCodeHelp = `Exit codes:
  0    ok
  1    a gate tripped (--fail-on-failure with a failing probe, --fail-on-drift with drift)
  2    usage or configuration error (nothing was called)
  3    the run could not be measured (provider errors above --max-errors)
  130  interrupted (what finished was still written)`

// Stdio are the streams a command reads and writes.
type Stdio struct {
	In  io.Reader
	Out io.Writer
	Err io.Writer
}

// exitError carries an exit code and hints up to Main.
type exitError struct {
	code  int
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
func codeErr(code int) error { return &exitError{code: code} }

// hinted is an error with hints for the user.
type hinted interface{ Hints() []string }

// Main runs the command line with args and returns the exit code.
func Main(ctx context.Context, args []string, stdio Stdio) int {
	app := &app{stdio: stdio, getenv: os.Getenv}
	root := app.rootCmd()
	root.SetArgs(args)
	root.SetIn(stdio.In)
	root.SetOut(stdio.Out)
	root.SetErr(stdio.Err)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return ExitOK
	}
	return app.report(err)
}

// app holds what every command shares.
type app struct {
	stdio  Stdio
	getenv func(string) string
	// store is the --store flag: the run history database.
	store string
}

func (a *app) rootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "promptcanary",
		Short: "Catch silent behavioural drift in LLM providers",
		Long: `PromptCanary runs canary prompts against an LLM provider, judges each
response with probes, saves baselines and reports drift with a severity and
an exit code that gates CI.

Quick start (offline, on the built-in simulated model):
  promptcanary init demo && cd demo
  promptcanary run -p sim/stable --save-baseline
  promptcanary compare -p sim/drifted --baseline-provider sim/stable

` + exitCodeHelp,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       version(),
	}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &exitError{code: ExitUsage, err: err, hints: []string{"run '" + c.CommandPath() + " --help' for usage"}}
	})
	root.SetVersionTemplate("{{.Version}}\n")
	root.PersistentFlags().StringVar(&a.store, "store", "", "run history database (default: store: in canary.yaml, else "+defaultStore+" beside it)")
	root.AddCommand(
		a.initCmd(),
		a.runCmd(),
		a.compareCmd(),
		a.baselinesCmd(),
		a.reportCmd(),
		a.probesCmd(),
		a.validateCmd(),
		a.versionCmd(),
		a.historyCmd(),
		a.showCmd(),
		a.baselineCmd(),
		a.trendsCmd(),
	)
	return root
}

// argsUsage makes a wrong number of arguments a usage error that points
// at the command's own help.
func argsUsage(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if err := check(c, args); err != nil {
			return usageErr(err, "run '"+c.CommandPath()+" --help' for usage")
		}
		return nil
	}
}

// report prints err and its hints and returns the exit code it carries.
func (a *app) report(err error) int {
	code := ExitUsage
	var ee *exitError
	if errors.As(err, &ee) {
		code = ee.code
		if ee.err == nil {
			return code
		}
	} else if strings.HasPrefix(err.Error(), "unknown command") {
		ee = &exitError{code: ExitUsage, err: err, hints: []string{"run 'promptcanary --help' for usage"}}
	}
	var pe problemsErr
	if errors.As(err, &pe) {
		printProblems(a.stdio.Err, pe.ve)
		return code
	}
	printErr(a.stdio.Err, err)
	if ee != nil {
		for _, h := range ee.hints {
			fmt.Fprintf(a.stdio.Err, "promptcanary: hint: %s\n", h)
		}
	}
	var h hinted
	if errors.As(err, &h) {
		for _, s := range h.Hints() {
			fmt.Fprintf(a.stdio.Err, "promptcanary: hint: %s\n", s)
		}
	}
	return code
}

// printErr prints one "promptcanary: error:" line per line of err.
func printErr(w io.Writer, err error) {
	for _, line := range strings.Split(strings.TrimRight(err.Error(), "\n"), "\n") {
		fmt.Fprintf(w, "promptcanary: error: %s\n", line)
	}
}

// warn prints a warning line on stderr.
func (a *app) warn(format string, args ...any) {
	fmt.Fprintf(a.stdio.Err, "promptcanary: warning: "+format+"\n", args...)
}
