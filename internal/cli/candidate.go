package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/check"
	"github.com/promptcanary/promptcanary/report"
)

// defaultCandidateSamples is the samples per prompt of compare --candidate
// when neither --samples nor samples: says: with one sample no pair can be
// shown worse, and a 5-point margin needs dozens to show "no worse".
const defaultCandidateSamples = 30

// candidateExcludes are the compare flags that make no sense with
// --candidate: it compares two models run now, with no baseline, and
// exits 1 on its own verdict. Every report file flag applies.
var candidateExcludes = []string{"current", "baseline", "baseline-dir", "baseline-provider",
	"fail-on-drift", "fail-on-identity", "fail-on-economic", "legacy-compare", "no-adaptive", "control"}

// checkCandidateFlags refuses the flags that do not go with --candidate,
// and --margin without it.
func checkCandidateFlags(c *cobra.Command, o *compareOptions) error {
	f := c.Flags()
	if o.candidate == "" {
		if f.Changed("margin") {
			return usageErr(fmt.Errorf("--margin needs --candidate"), "compare -p CURRENT --candidate CANDIDATE --margin 5 tests whether the candidate is no worse")
		}
		return nil
	}
	for _, name := range candidateExcludes {
		if f.Changed(name) {
			return usageErr(fmt.Errorf("--candidate and --%s exclude each other", name),
				"--candidate runs the current model and the candidate now and compares them with each other: no baseline, no saved run, no drift threshold (it exits 1 on a pair worse beyond --margin)")
		}
	}
	if !(o.margin > 0 && o.margin < 100) {
		return usageErr(fmt.Errorf("--margin %v is out of range", o.margin), "give the margin in points between 0 and 100, for example --margin 5")
	}
	if len(o.settings.providers) > 1 {
		return usageErr(fmt.Errorf("--candidate compares one current model, but --provider is given %d times", len(o.settings.providers)),
			"pass the current model once with -p and the candidate with --candidate")
	}
	return nil
}

// compareCandidate runs the upgrade gate: the current model and the
// candidate on the same prompts, samples and seed, each pair tested for
// non-inferiority of the candidate (drift.Candidate). It exits 1 when a
// pair is worse beyond the margin, 3 when nothing could be compared.
func (a *app) compareCandidate(c *cobra.Command, o *compareOptions) error {
	_, st, w, err := a.suiteWorkflow(c, o.config, &o.settings)
	if err != nil {
		return err
	}
	if !c.Flags().Changed("samples") && st.Defaults.Samples == nil {
		n := defaultCandidateSamples
		w.Samples = &n
	}
	sel, targets, samples, err := o.settings.resolve(c, st, w)
	if err != nil {
		return err
	}
	if len(targets) != 1 {
		return usageErr(fmt.Errorf("--candidate compares one current model, but providers: in canary.yaml names %d", len(targets)),
			"pick the current model with -p NAME/MODEL")
	}
	if samples < 2 {
		return usageErr(fmt.Errorf("--candidate needs --samples 2 or more (got %d): one sample cannot show a pair worse or no worse", samples),
			fmt.Sprintf("drop samples: from canary.yaml or pass --samples %d", defaultCandidateSamples))
	}
	// Each model is resolved as if it ran alone, so that the same model
	// may be its own candidate (an A/A test of the gate).
	wc := w
	wc.Providers = []string{o.candidate}
	_, cand, _, err := o.settings.resolve(c, st, wc)
	if err != nil {
		return err
	}
	both := append(targets, cand...)
	a.noteAdjustments(both)

	bar := a.progress(&o.settings, sel, both, samples)
	out, err := check.Gate(c.Context(), check.GateRequest{
		Suite: sel, Current: targets[0], Candidate: cand[0], Samples: samples,
		Exec:      a.exec(w, bar),
		MaxErrors: o.settings.maxErrors,
		Margin:    o.margin / 100,
	})
	bar.finish()
	if err != nil {
		return err
	}
	if out.Interrupted {
		a.warn("interrupted: nothing compared or recorded")
		return codeErr(ExitInterrupted)
	}
	if len(out.Problems) > 0 {
		a.warnProblems(out.Problems)
		return codeErr(ExitUnmeasured)
	}
	return a.reportCandidate(o, out.Report)
}

// reportCandidate prints and writes the report of an upgrade gate and
// returns its exit code as an error (nil for ok).
func (a *app) reportCandidate(o *compareOptions, rep *promptcanary.CandidateReport) error {
	opts := a.termOptions(o.verbose)
	render := func(w io.Writer, f report.Format) error { return report.Candidate(w, f, rep, opts) }
	var failures []error
	if err := render(a.stdio.Out, report.Terminal); err != nil {
		failures = append(failures, fmt.Errorf("print the report: %w", err))
	}
	failures = append(failures, o.out.write(render)...)
	failures = append(failures, a.stepSummary(render)...)
	code := ExitOK
	switch {
	case rep.Summary.Pairs == 0:
		code = ExitUnmeasured
	case rep.Summary.Worse > 0:
		code = ExitGate
	}
	return a.verdict(code, failures)
}
