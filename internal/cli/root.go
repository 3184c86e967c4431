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
	"regexp"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/spf13/pflag"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/quote"
	"github.com/promptcanary/promptcanary/internal/redact"
	"github.com/promptcanary/promptcanary/internal/suggest"
	"github.com/promptcanary/promptcanary/internal/telemetry"
	"github.com/promptcanary/promptcanary/internal/termtext"
	"github.com/promptcanary/promptcanary/suite"

	// The built-in probes and providers register themselves.
	_ "github.com/promptcanary/promptcanary/probe/builtin"
	_ "github.com/promptcanary/promptcanary/provider/builtin"
)

// Stdio are the streams a command reads and writes.
type Stdio struct {
	In  io.Reader
	Out io.Writer
	Err io.Writer
}

// Main runs the command line with args and returns the exit code.
//
// Everything the command prints goes through one scrubber that knows every
// secret the providers read (API keys, header values from ${ENV}), so no
// secret reaches the terminal, whatever path an error or an echoed answer
// takes.
func Main(ctx context.Context, args []string, stdio Stdio) int {
	secrets := redact.New()
	out, errw := secrets.Writer(stdio.Out), secrets.Writer(stdio.Err)
	mu := &sync.Mutex{}
	defer func() {
		mu.Lock()
		defer mu.Unlock()
		out.Flush()
		errw.Flush()
	}()
	app := &app{
		stdio:   Stdio{In: stdio.In, Out: terminalWriter{mu, out, stdio.Out}, Err: terminalWriter{mu, errw, stdio.Err}},
		getenv:  os.Getenv,
		secrets: secrets,
	}
	root := app.rootCmd()
	app.root = root
	if len(args) == 1 && args[0] == "-v" {
		// -v printed the version before it meant --verbose everywhere.
		app.warn("-v for the version is deprecated: use 'promptcanary --version' or 'promptcanary version' (-v means --verbose)")
		args = []string{"--version"}
	}
	root.SetArgs(args)
	root.SetIn(stdio.In)
	root.SetOut(stdio.Out)
	root.SetErr(stdio.Err)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return int(ExitOK)
	}
	return int(app.report(err))
}

// app holds what every command shares.
type app struct {
	stdio  Stdio
	getenv func(string) string
	// store is the --store flag: the run history database.
	store string
	// secrets are the values no output may show.
	secrets *redact.Set
	// root is the command tree, for hints about unknown commands.
	root *cobra.Command
	// tracer exports the spans of the command running, nil when
	// OpenTelemetry is not configured (see traced).
	tracer *telemetry.Tracer
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
		// An unknown command gets our hint line (commandHint), not
		// cobra's "Did you mean this?" block inside the error.
		DisableSuggestions: true,
		Version:            version(),
	}
	root.SetFlagErrorFunc(flagError)
	root.SetVersionTemplate("{{.Version}}\n")
	// --version has no -v: -v is --verbose in every command.
	root.Flags().Bool("version", false, "print the version")
	root.PersistentFlags().StringVar(&a.store, "store", "", "run history: a SQLite file or a postgres:// URL (default: store: in canary.yaml, else "+suite.DefaultStore+" beside it)")
	root.AddCommand(
		a.initCmd(),
		a.runCmd(),
		a.compareCmd(),
		a.baselinesCmd(),
		a.reportCmd(),
		a.probesCmd(),
		a.validateCmd(),
		a.versionCmd(),
		a.modelsCmd(),
		a.historyCmd(),
		a.showCmd(),
		a.baselineCmd(),
		a.trendsCmd(),
		a.selftestCmd(),
		a.serveCmd(),
		a.storeCmd(),
	)
	oneDefault(root)
	return root
}

// oneDefault keeps --help from printing a default twice: a flag whose
// usage already says "(default: …)" does not get pflag's own
// "(default "canary.yaml")" after it.
func oneDefault(c *cobra.Command) {
	drop := func(f *pflag.Flag) {
		if !strings.Contains(f.Usage, "(default") {
			return
		}
		switch f.Value.Type() {
		case "int", "int64", "float64":
			f.DefValue = "0"
		case "duration":
			f.DefValue = "0s"
		case "bool":
			f.DefValue = "false"
		case "stringArray":
			f.DefValue = "[]"
		default:
			f.DefValue = ""
		}
	}
	c.LocalFlags().VisitAll(drop)
	c.PersistentFlags().VisitAll(drop)
	for _, sub := range c.Commands() {
		oneDefault(sub)
	}
}

// flagError makes a flag parsing error a usage error in our words, with
// the likely fix and a pointer to the command's help.
func flagError(c *cobra.Command, err error) error {
	hints := []string{"run '" + c.CommandPath() + " --help' for usage"}
	var h hinted
	if errors.As(err, &h) {
		hints = append(h.Hints(), hints...)
	}
	if h := flagSuggestion(c, err); h != "" {
		hints = append([]string{h}, hints...)
	}
	if strings.HasPrefix(err.Error(), "unknown shorthand flag: 'v'") {
		hints = append([]string{"-v is --verbose, which '" + c.CommandPath() + "' does not have; the version is 'promptcanary --version'"}, hints...)
	}
	if ive, ok := errors.AsType[*pflag.InvalidValueError](err); ok {
		err = fmt.Errorf("invalid value %q for --%s: %s", ive.GetValue(), ive.GetFlag().Name, wantValue(ive))
	}
	return &exitError{code: ExitUsage, err: err, hints: hints}
}

// wantValue says what a flag takes, in place of the parser's own error
// (strconv.ParseInt: parsing "x": invalid syntax).
func wantValue(ive *pflag.InvalidValueError) string {
	switch ive.GetFlag().Value.Type() {
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64":
		return "want a whole number"
	case "float32", "float64":
		return "want a number, e.g. 0.7"
	case "bool":
		return "want true or false"
	case "duration":
		return "want a duration such as 30s, 5m or 2h"
	}
	return errors.Unwrap(ive).Error()
}

// flagSuggestion turns cobra's "unknown flag: --sample" into "did you mean
// --samples?" when a flag of the command is close.
func flagSuggestion(c *cobra.Command, err error) string {
	name, ok := strings.CutPrefix(err.Error(), "unknown flag: --")
	if !ok {
		return ""
	}
	var names []string
	c.Flags().VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
	if best := suggest.Closest(name, names); best != "" {
		return "did you mean --" + best + "?"
	}
	return ""
}

// argsUsage makes a wrong number of arguments a usage error that points
// at the command's own help.
func argsUsage(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if err := check(c, args); err != nil {
			hints := []string{"run '" + c.CommandPath() + " --help' for usage"}
			// "--fail-on-drift high" leaves "high" as an argument: the
			// flag's value must be attached.
			if len(args) > 0 && c.Flags().Lookup("fail-on-drift") != nil {
				if sev, perr := promptcanary.ParseSeverity(strings.ToLower(args[0])); perr == nil && sev != promptcanary.SeverityNone {
					hints = append([]string{"did you mean --fail-on-drift=" + string(sev) + "? (the threshold is attached with =)"}, hints...)
				}
			}
			if len(args) > 0 && c.HasSubCommands() {
				if h := commandHint(c, args[0]); h != "" {
					hints = append([]string{h}, hints...)
				}
			}
			return usageErr(err, hints...)
		}
		return nil
	}
}

// unknownCommand matches cobra's error for an unknown command of the root.
var unknownCommand = regexp.MustCompile(`^unknown command "([^"]*)" for "`)

// commandHint suggests the subcommand of c nearest to name: "did you mean
// 'promptcanary serve'?", or "" when none is close.
func commandHint(c *cobra.Command, name string) string {
	var names []string
	for _, sub := range c.Commands() {
		if sub.IsAvailableCommand() {
			names = append(names, sub.Name())
			names = append(names, sub.Aliases...)
		}
	}
	best := suggest.Closest(name, names)
	if best == "" {
		return ""
	}
	if sub, _, err := c.Find([]string{best}); err == nil {
		best = sub.Name()
	}
	return "did you mean '" + c.CommandPath() + " " + best + "'?"
}

// report prints err and its hints and returns the exit code it carries.
func (a *app) report(err error) ExitCode {
	code := exitCode(err)
	err = flagWords(err)
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err == nil {
			return code
		}
	} else if strings.HasPrefix(err.Error(), "unknown command") {
		hints := []string{"run 'promptcanary --help' for usage"}
		if m := unknownCommand.FindStringSubmatch(err.Error()); m != nil {
			if h := commandHint(a.root, m[1]); h != "" {
				hints = append([]string{h}, hints...)
			}
		}
		ee = &exitError{code: ExitUsage, err: err, hints: hints}
	}
	var pe problemsErr
	if errors.As(err, &pe) {
		printProblems(a.stdio.Err, pe.ve)
		return code
	}
	printErr(a.stdio.Err, err)
	if ee != nil {
		for _, h := range ee.hints {
			printHint(a.stdio.Err, h)
		}
	}
	var h hinted
	if errors.As(err, &h) {
		for _, s := range h.Hints() {
			printHint(a.stdio.Err, s)
		}
	}
	return code
}

// printErr prints one "promptcanary: error:" line per line of err. Errors
// quote canary.yaml, provider answers and file contents, so every line
// passes through the terminal sanitiser.
func printErr(w io.Writer, err error) {
	printLines(w, "promptcanary: error: ", err.Error())
}

// printHint prints a "promptcanary: hint:" line per line of h, sanitised.
func printHint(w io.Writer, h string) {
	printLines(w, "promptcanary: hint: ", h)
}

// printLines prints each line of text after prefix, sanitised for the
// terminal.
func printLines(w io.Writer, prefix, text string) {
	for _, line := range strings.Split(quote.Bound(strings.TrimRight(text, "\n")), "\n") {
		fmt.Fprintf(w, "%s%s\n", prefix, termtext.Safe(line))
	}
}

// warn prints a warning line on stderr, sanitised for the terminal.
func (a *app) warn(format string, args ...any) {
	printLines(a.stdio.Err, "promptcanary: warning: ", fmt.Sprintf(format, args...))
}
