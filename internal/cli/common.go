package cli

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/mattn/go-isatty"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/promptcanary/promptcanary/internal/atomicfile"
	"github.com/promptcanary/promptcanary/internal/buildinfo"
	"github.com/promptcanary/promptcanary/internal/suggest"
	"github.com/promptcanary/promptcanary/report"
	"github.com/promptcanary/promptcanary/suite"
)

// version is the line `promptcanary version` and --version print: the
// release's -X stamp (scripts/release.sh) where set, else the module's
// build information (go install …@vX.Y.Z).
func version() string { return buildinfo.Read().String() }

// toolName is recorded in runs.
func toolName() string { return "promptcanary-go " + moduleVersion() }

func moduleVersion() string { return buildinfo.Read().Version }

// loadSuite loads canary.yaml, turning validation problems into a usage
// error that prints each problem with its hint.
func loadSuite(path string) (*suite.Suite, error) {
	s, err := suite.Load(path)
	if err != nil {
		var ve *suite.ValidationError
		if errors.As(err, &ve) {
			return nil, &exitError{code: ExitUsage, err: problemsErr{ve}}
		}
		if errors.Is(err, os.ErrNotExist) {
			return nil, usageErr(err, "create one with 'promptcanary init', or point to it with --config")
		}
		return nil, usageErr(err)
	}
	return s, nil
}

// problemsErr prints every validation problem followed by its hint.
type problemsErr struct{ ve *suite.ValidationError }

func (p problemsErr) Error() string { return p.ve.Error() }

// printProblems writes each problem and hint to w.
func printProblems(w io.Writer, ve *suite.ValidationError) {
	for _, pr := range ve.Problems {
		printErr(w, pr)
		if pr.Hint != "" {
			printHint(w, pr.Hint)
		}
	}
}

// terminalWriter is the writer every command prints through: the
// scrubber in front of a stream, behind a lock shared by standard output
// and standard error (retry notices, the progress bar and reports are
// written from several goroutines), remembering the stream so that
// isTerminal can look at it.
type terminalWriter struct {
	mu     *sync.Mutex
	w      io.Writer
	stream io.Writer
}

func (t terminalWriter) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.w.Write(p)
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f := streamFile(w)
	return f != nil && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

// streamFile is the file behind w, or nil.
func streamFile(w io.Writer) *os.File {
	if tw, ok := w.(terminalWriter); ok {
		w = tw.stream
	}
	f, _ := w.(*os.File)
	return f
}

// defaultWidth is the width text is laid out for when it is not written
// to a terminal and COLUMNS does not say otherwise.
const defaultWidth = 100

// widthFor is the number of columns to lay out text written to w for: the
// terminal's own width, else COLUMNS, else 100.
func (a *app) widthFor(w io.Writer) int {
	if f := streamFile(w); f != nil && isTerminal(w) {
		if cols, _, err := term.GetSize(int(f.Fd())); err == nil && cols > 0 {
			return cols
		}
	}
	if n, err := strconv.Atoi(strings.TrimSpace(a.getenv("COLUMNS"))); err == nil && n > 0 {
		return n
	}
	return defaultWidth
}

// termOptions are the options of a report printed on standard output:
// colour on a terminal, laid out to its width.
func (a *app) termOptions(verbose bool) report.Options {
	return report.Options{Color: a.colorFor(a.stdio.Out), Width: a.widthFor(a.stdio.Out), Verbose: verbose}
}

// colorFor decides whether to colour output written to w: only on a
// terminal, never with NO_COLOR set or TERM=dumb.
func (a *app) colorFor(w io.Writer) bool {
	if a.getenv("NO_COLOR") != "" || a.getenv("TERM") == "dumb" {
		return false
	}
	return isTerminal(w)
}

// writeReport renders straight into a temporary file that then replaces
// path atomically, so a failed render never leaves a half-written report
// and a large report (the JSON of a statistical compare is megabytes) is
// never held whole in memory.
func writeReport(path string, render func(io.Writer) error) error {
	pr, pw := io.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		bw := bufio.NewWriterSize(pw, 64<<10)
		err := render(bw)
		if err == nil {
			err = bw.Flush()
		} else {
			err = renderError{err}
		}
		// A failed render fails the copy into the temporary file, which
		// is then removed; nil ends the copy.
		pw.CloseWithError(err)
	}()
	err := atomicfile.WriteFrom(path, pr, 0o644)
	// A write that stopped early fails the render's next write.
	pr.CloseWithError(errReportAbandoned)
	<-done
	if re, ok := errors.AsType[renderError](err); ok {
		return fmt.Errorf("render %q: %w", path, re.err)
	}
	return err
}

// renderError marks the error of a report's render among those of writing
// its file.
type renderError struct{ err error }

func (e renderError) Error() string { return e.err.Error() }
func (e renderError) Unwrap() error { return e.err }

// errReportAbandoned is what a render writes into once its file can no
// longer be written.
var errReportAbandoned = errors.New("the report file could not be written")

// rendering is how a command that prints one report was asked to show it:
// --format, --output and --verbose, and the formats the command has.
type rendering struct {
	format, output string
	verbose        bool
	formats        []report.Format
}

// flags declares --format (listing only formats), --output and --verbose;
// verbose is what --verbose does for this command.
func (r *rendering) flags(c *cobra.Command, verbose string, formats ...report.Format) {
	r.formats = formats
	c.Flags().StringVarP(&r.format, "format", "f", string(report.Terminal), formatList(formats))
	c.Flags().StringVarP(&r.output, "output", "o", "", "write to this file instead of standard output")
	c.Flags().BoolVarP(&r.verbose, "verbose", "v", false, verbose)
}

// parse checks --format before anything is read: a format the command does
// not have is a usage error that lists the ones it has.
func (r *rendering) parse(c *cobra.Command) (report.Format, error) {
	hint := "use --format " + formatList(r.formats)
	f, err := report.ParseFormat(r.format)
	if err != nil {
		names := make([]string, len(r.formats))
		for i, f := range r.formats {
			names[i] = string(f)
		}
		return "", usageErr(fmt.Errorf("unknown format %q%s", r.format, suggest.Hint(r.format, names)), hint)
	}
	if !slices.Contains(r.formats, f) {
		return "", usageErr(fmt.Errorf("%s has no %s format", c.CommandPath(), f), hint)
	}
	return f, nil
}

// formatList names formats as a list: "terminal, markdown, html or json".
func formatList(formats []report.Format) string {
	names := make([]string, len(formats))
	for i, f := range formats {
		names[i] = string(f)
	}
	return joinList(names, "or")
}

// joinList joins items as a sentence does: "a", "a and b", "a, b and c".
func joinList(items []string, conj string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " " + conj + " " + items[len(items)-1]
}

// emit renders to --output (atomically) or to standard output, colouring
// only a terminal report printed to a terminal. An output that cannot be
// written exits 5, like every other output failure.
func (a *app) emit(r *rendering, f report.Format, render func(io.Writer, report.Options) error) error {
	opts := report.Options{Verbose: r.verbose}
	if r.output == "" && f == report.Terminal {
		opts = a.termOptions(r.verbose)
	}
	if r.output != "" {
		if err := writeReport(r.output, func(w io.Writer) error { return render(w, opts) }); err != nil {
			return &exitError{code: ExitOutput, err: err}
		}
		return nil
	}
	var buf bytes.Buffer
	if err := render(&buf, opts); err != nil {
		return err
	}
	if _, err := a.stdio.Out.Write(buf.Bytes()); err != nil {
		return &exitError{code: ExitOutput, err: fmt.Errorf("write the report: %w", err)}
	}
	return nil
}

// outputs are the report files a command may write.
type outputs struct {
	json, md, html, junit string
}

func (o *outputs) flags(c *cobra.Command) {
	c.Flags().StringVarP(&o.json, "output-json", "o", "", "write the result as JSON to this file")
	c.Flags().StringVar(&o.md, "output-md", "", "write a Markdown report (fit for a PR comment) to this file")
	c.Flags().StringVar(&o.html, "output-html", "", "write a self-contained HTML report to this file")
	c.Flags().StringVar(&o.junit, "output-junit", "", "write JUnit XML (one test case per probe and prompt) for CI test reports to this file")
}

// suffixed returns the outputs with a provider slug before each file's
// extension (drift.md → drift.openai-gpt-4o.md), for one report per provider.
func (o outputs) suffixed(spec string) outputs {
	slug := strings.NewReplacer("/", "-", ":", "-", " ", "_").Replace(spec)
	add := func(p string) string {
		if p == "" {
			return ""
		}
		ext := filepath.Ext(p)
		return strings.TrimSuffix(p, ext) + "." + slug + ext
	}
	return outputs{json: add(o.json), md: add(o.md), html: add(o.html), junit: add(o.junit)}
}

// write renders every requested file with render(format). A file that
// fails does not stop the others: every failure is returned.
func (o *outputs) write(render func(w io.Writer, f report.Format) error) []error {
	var errs []error
	for _, out := range []struct {
		path string
		f    report.Format
	}{{o.json, report.JSON}, {o.md, report.Markdown}, {o.html, report.HTML}, {o.junit, report.JUnit}} {
		if out.path == "" {
			continue
		}
		if err := writeReport(out.path, func(w io.Writer) error { return render(w, out.f) }); err != nil {
			errs = append(errs, fmt.Errorf("write %s report: %w", out.f, err))
		}
	}
	return errs
}

// stepSummary appends the Markdown report to the file GitHub Actions names
// in GITHUB_STEP_SUMMARY, so the job's summary page shows it.
func (a *app) stepSummary(render func(w io.Writer, f report.Format) error) []error {
	path := a.getenv("GITHUB_STEP_SUMMARY")
	if path == "" {
		return nil
	}
	var buf bytes.Buffer
	if err := render(&buf, report.Markdown); err != nil {
		return []error{fmt.Errorf("render the GitHub step summary: %w", err)}
	}
	buf.WriteString("\n")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return []error{fmt.Errorf("append to GITHUB_STEP_SUMMARY: %w", err)}
	}
	_, err = f.Write(buf.Bytes())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return []error{fmt.Errorf("append to GITHUB_STEP_SUMMARY %q: %w", path, err)}
	}
	return nil
}
