package cli

import (
	"fmt"
	"github.com/promptcanary/promptcanary/internal/quote"
	"io"
	"os"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/promptcanary/promptcanary/check"
	"github.com/promptcanary/promptcanary/internal/termtext"
	"github.com/promptcanary/promptcanary/report"
	"github.com/promptcanary/promptcanary/runner"
	"github.com/promptcanary/promptcanary/suite"
)

// streamMode is the --stream flag: unset (auto), true or false.
func (o *runOptions) streamMode(c *cobra.Command) check.StreamMode {
	switch {
	case !c.Flags().Changed("stream"):
		return check.StreamAuto
	case o.stream:
		return check.StreamAlways
	}
	return check.StreamNever
}

// runStream judges every line of one replay file as a stream, prints the
// aggregated report and writes the report files. Nothing is recorded in
// the history: a streamed run keeps no answers.
func (a *app) runStream(c *cobra.Command, o *runOptions, sel *suite.Suite, t check.Target, path string, w check.Settings) error {
	var bar *streamBar
	if !o.settings.noProgress && isTerminal(a.stdio.Err) {
		var size int64
		if info, err := os.Stat(path); err == nil {
			size = info.Size()
		}
		bar = newStreamBar(a.stdio.Err, t.Spec, size, a.widthFor(a.stdio.Err), time.Now)
	}
	out, err := check.Stream(c.Context(), check.StreamRequest{
		Suite: sel, Target: t, Path: path,
		Exec:      check.Exec{Settings: w, Tool: toolName()},
		MaxErrors: o.settings.maxErrors,
		Progress:  bar.update,
	})
	bar.finish()
	if err != nil {
		return err
	}
	s := out.Summary
	opts := a.termOptions(o.verbose)
	render := func(w io.Writer, f report.Format) error { return report.Summary(w, f, s, opts) }
	var failures []error
	if err := render(a.stdio.Out, report.Terminal); err != nil {
		failures = append(failures, fmt.Errorf("print the report: %w", err))
	}
	if out.Interrupted {
		// Aggregates of part of a file would read as the file's: no file
		// is written.
		a.warn("interrupted after %s of %s; no report file was written", report.Count(s.Lines, "line"), termtext.Safe(s.Source))
		a.printFailures(failures)
		return codeErr(ExitInterrupted)
	}
	failures = append(failures, o.out.write(render)...)
	failures = append(failures, a.stepSummary(render)...)
	a.warnProblems(out.Problems)
	fmt.Fprintf(a.stdio.Err, "promptcanary: streamed %s of %s on %s; a streamed run keeps no answers, so it is not recorded in the history\n",
		report.Count(s.Lines, "line"), termtext.Safe(s.Source), report.Count(int64(streamWorkers()), "core"))
	code := verdictCode(out.Verdict(o.failOnFailure))
	return a.verdict(code, failures)
}

// streamWorkers is how many goroutines judge a stream: one per core
// (runner.StreamOptions.Workers left to its default).
func streamWorkers() int { return runtime.GOMAXPROCS(0) }

// streamBar draws one line on a terminal while a file streams:
//
//	replay/logs.jsonl [#########---------------------] 31% of 612 MiB  312,000 lines  0:04 elapsed  ETA 0:09
//
// redrawing at most every 100 ms, and erases itself when done.
type streamBar struct {
	w     io.Writer
	mu    sync.Mutex
	label string
	size  int64
	start time.Time
	last  time.Time
	drawn bool
	cols  int // terminal width
	now   func() time.Time
}

func newStreamBar(w io.Writer, spec string, size int64, cols int, now func() time.Time) *streamBar {
	return &streamBar{w: w, label: termtext.Truncate(termtext.Safe(spec), 40), size: size, cols: cols, now: now, start: now()}
}

// update is a check.StreamRequest.Progress callback; a nil bar does
// nothing.
func (b *streamBar) update(p runner.StreamProgress) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.now()
	if now.Sub(b.last) < 100*time.Millisecond {
		return
	}
	b.last = now
	io.WriteString(b.w, "\r\033[K"+streamLine(b.label, p, b.size, now.Sub(b.start), b.cols))
	b.drawn = true
}

// streamLine renders the bar's line in cols columns.
func streamLine(label string, p runner.StreamProgress, size int64, elapsed time.Duration, cols int) string {
	var sb strings.Builder
	total := int64(-1) // no bar
	if size > 0 {
		done := min(p.Bytes, size)
		total = size
		fmt.Fprintf(&sb, " %d%% of %d MiB", done*100/size, (size+1<<20-1)>>20)
	}
	fmt.Fprintf(&sb, "  %s lines  %s elapsed", quote.Thousands(int(p.Lines)), clock(elapsed))
	if size > 0 && p.Bytes > 0 && p.Bytes < size {
		eta := time.Duration(float64(elapsed) / float64(p.Bytes) * float64(size-p.Bytes))
		fmt.Fprintf(&sb, "  ETA %s", clock(eta))
	}
	return barLine(label, p.Bytes, total, sb.String(), cols)
}

// finish erases the bar; a nil bar does nothing.
func (b *streamBar) finish() {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.drawn {
		io.WriteString(b.w, "\r\033[K")
		b.drawn = false
	}
}
