// Package selftest measures which drifts a suite would catch: it applies a
// catalogue of realistic drifts (a preamble, a refusal, JSON in a fence, a
// renamed tool, …) to the answers stored in a baseline, runs the suite's
// probes on the original and on every mutated answer, and reports, for each
// drift and probe instance, whether the probe notices. Drifts that no probe
// notices come with a suggested probe.
//
// A self-test makes no API call and reads no clock; it has no randomness,
// so the same suite and baseline always give the same result.
package selftest

import (
	"cmp"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
	"github.com/promptcanary/promptcanary/runner"
	"github.com/promptcanary/promptcanary/suite"
)

// The result types are the root package's, so that renderers need not
// import the self-test; these names keep this package's API readable.
type (
	// Outcome is what one probe instance made of one drift.
	Outcome = promptcanary.SelftestOutcome
	// Samples are the per-prompt sample counts of a baseline and a current run.
	Samples = promptcanary.SelftestSamples
	// Result is the outcome of a self-test.
	Result = promptcanary.SelftestResult
	// Probe is one probe instance of the suite.
	Probe = promptcanary.SelftestProbe
	// DriftResult is one drift's row of the matrix.
	DriftResult = promptcanary.SelftestDrift
	// Cell is what one probe instance made of one drift.
	Cell = promptcanary.SelftestCell
	// Gap is a set of prompts on which a drift goes unnoticed.
	Gap = promptcanary.SelftestGap
	// Suggestion is a probe that would catch a drift.
	Suggestion = promptcanary.SelftestSuggestion
	// Detectable is the smallest pass-rate drop the statistics detect.
	Detectable = promptcanary.SelftestDetectable
)

// The outcomes of a matrix cell.
const (
	Caught        = promptcanary.SelftestCaught
	Missed        = promptcanary.SelftestMissed
	NotApplicable = promptcanary.SelftestNotApplicable
)

// Options configures Run. The zero value applies the whole catalogue and
// leaves out the detectable drops.
type Options struct {
	// Drifts are the drifts to apply; nil means Catalogue().
	Drifts []Drift
	// Samples, when set, asks for the smallest pass-rate drop per probe the
	// drift statistics detect with these sample counts.
	Samples *Samples
	// Alpha is the level of the drift statistics; 0 means drift.DefaultAlpha.
	Alpha float64
}

// promptAnswers is one prompt of the suite with its stored answers and the
// probes' verdicts on them.
type promptAnswers struct {
	prompt   *promptcanary.Prompt
	probes   []probe.Instance
	answers  []promptcanary.Response
	original [][]promptcanary.ProbeResult // per answer, per probe
}

// Run self-tests st against the answers stored in base. It fails when the
// baseline belongs to another suite, holds no answer for any of the suite's
// prompts, or when a drift is malformed.
func Run(st *suite.Suite, base *promptcanary.Baseline, opts Options) (*Result, error) {
	if st == nil || base == nil {
		return nil, errors.New("selftest: suite and baseline are required")
	}
	name := cmp.Or(base.SuiteName, base.RunResult.SuiteName)
	if name != "" && name != st.Name {
		return nil, fmt.Errorf("selftest: baseline %q is for suite %q, not %q", base.SnapshotID, name, st.Name)
	}
	drifts := opts.Drifts
	if drifts == nil {
		drifts = catalogue
	}
	seen := map[string]bool{}
	for i, d := range drifts {
		switch {
		case d.ID == "" || d.Apply == nil || d.Suggest == nil:
			return nil, fmt.Errorf("selftest: drift %d (%q) needs an id, Apply and Suggest", i, d.ID)
		case seen[d.ID]:
			return nil, fmt.Errorf("selftest: drift %q listed twice", d.ID)
		}
		seen[d.ID] = true
	}

	res := &Result{Suite: st.Name, BaselineID: base.SnapshotID, Model: cmp.Or(base.Provider.ModelID, base.RunResult.Provider.ModelID)}
	prompts := collect(st, base, res)
	if len(prompts) == 0 {
		return nil, fmt.Errorf("selftest: baseline %q holds no answer to any prompt of suite %q: save a baseline with this suite first", base.SnapshotID, st.Name)
	}
	res.Probes = probeList(st, prompts)
	col := make(map[string]int, len(res.Probes))
	for i := range res.Probes {
		col[res.Probes[i].ID] = i
	}
	for i := range drifts {
		res.Drifts = append(res.Drifts, apply(&drifts[i], prompts, res.Probes, col))
	}
	for _, p := range res.Probes {
		if p.Passed < p.Judged {
			res.Notes = append(res.Notes, fmt.Sprintf("%s fails %d of the %d stored answers it judges: it cannot catch a drift on those", p.ID, p.Judged-p.Passed, p.Judged))
		}
	}
	if opts.Samples != nil {
		if err := detectable(res, *opts.Samples, opts.Alpha); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// collect groups the stored answers by prompt, in suite order, with the
// probes' verdicts on them, and notes the prompts left without answers.
func collect(st *suite.Suite, base *promptcanary.Baseline, res *Result) []*promptAnswers {
	byPrompt := map[string][]promptcanary.Response{}
	for _, r := range base.RunResult.LLMResponses {
		byPrompt[r.PromptID] = append(byPrompt[r.PromptID], r)
	}
	var out []*promptAnswers
	var missing, skipped []string
	for i := range st.Prompts {
		pr := &st.Prompts[i]
		answers := byPrompt[pr.ID]
		if len(answers) == 0 {
			missing = append(missing, pr.ID)
			continue
		}
		slices.SortStableFunc(answers, func(a, b promptcanary.Response) int { return cmp.Compare(a.Sample, b.Sample) })
		var probes []probe.Instance
		for _, in := range st.ProbesFor(pr.ID) {
			// An external check (a type that declared External) may call
			// services or take seconds, and a probe that calls a model (a
			// judge, an embedder) would pay for every drifted answer; a
			// self-test runs each probe on every answer for every drift
			// and calls nothing, so it leaves them out and says so.
			if probe.IsExternal(in.Type) || callsModel(in.Probe) {
				if !slices.Contains(skipped, in.ID) {
					skipped = append(skipped, in.ID)
				}
				continue
			}
			probes = append(probes, in)
		}
		pa := &promptAnswers{prompt: pr, probes: probes, answers: answers}
		for j := range answers {
			pa.original = append(pa.original, runner.EvaluateWith(pr, &answers[j], pa.probes, others(answers, j)))
		}
		res.Answers += len(answers)
		out = append(out, pa)
	}
	res.Prompts = len(out)
	if len(missing) > 0 {
		res.Notes = append(res.Notes, fmt.Sprintf("%d prompt(s) have no stored answer in the baseline and were not tested: %s", len(missing), joinIDs(missing)))
	}
	if len(skipped) > 0 {
		res.Notes = append(res.Notes, fmt.Sprintf("exec probes and probes that call a model are not run by the self-test (they run a command or make a call per answer and drift): %s", joinIDs(skipped)))
	}
	return out
}

// callsModel reports whether p calls a model to judge an answer.
func callsModel(p probe.Probe) bool {
	return len(probe.DepsOf(p).Models) > 0
}

// probeList lists the probe instances that judge stored answers, suite-wide
// ones first, then each prompt's own in prompt order.
func probeList(st *suite.Suite, prompts []*promptAnswers) []Probe {
	var out []Probe
	at := map[string]int{}
	for _, pa := range prompts {
		for k, inst := range pa.probes {
			i, ok := at[inst.ID]
			if !ok {
				i = len(out)
				at[inst.ID] = i
				out = append(out, Probe{ID: inst.ID, Type: inst.Type, Name: inst.Name, Category: inst.Category})
			}
			p := &out[i]
			p.Prompts = append(p.Prompts, pa.prompt.ID)
			for a := range pa.answers {
				p.Judged++
				if pa.original[a][k].Passed {
					p.Passed++
				}
			}
		}
	}
	// Suite-wide instances first, as in canary.yaml.
	wide := map[string]bool{}
	for _, inst := range st.Probes {
		wide[inst.ID] = true
	}
	slices.SortStableFunc(out, func(a, b Probe) int {
		switch {
		case wide[a.ID] == wide[b.ID]:
			return 0
		case wide[a.ID]:
			return -1
		}
		return 1
	})
	return out
}

// cellAcc accumulates one cell.
type cellAcc struct {
	Cell
	deltaSum float64
}

// apply runs one drift over every stored answer and fills its row.
func apply(d *Drift, prompts []*promptAnswers, probes []Probe, col map[string]int) DriftResult {
	row := DriftResult{ID: d.ID, Name: d.Name, Description: d.Description, CaughtBy: []string{}}
	acc := make([]cellAcc, len(probes))
	for i := range acc {
		acc[i].Probe = probes[i].ID
	}
	gaps := map[Suggestion][]string{}
	var gapOrder []Suggestion
	for _, pa := range prompts {
		var changed []promptcanary.Response
		caughtHere := false
		for a := range pa.answers {
			orig := pa.answers[a]
			mut, ok := d.Apply(orig)
			if !ok || sameAnswer(&orig, &mut) {
				continue
			}
			changed = append(changed, orig)
			// Probes that judge an answer against others (similarity) see
			// the prompt's other stored answers, as the original did.
			after := runner.EvaluateWith(pa.prompt, &mut, pa.probes, others(pa.answers, a))
			for k := range after {
				c := &acc[col[after[k].ProbeID]]
				before := pa.original[a][k]
				c.Answers++
				c.deltaSum += after[k].Score - before.Score
				switch {
				case !before.Passed:
					c.AlreadyFailing++
				case !after[k].Passed:
					c.Caught++
					caughtHere = true
					if !slices.Contains(c.Prompts, pa.prompt.ID) {
						c.Prompts = append(c.Prompts, pa.prompt.ID)
					}
					if c.Details == "" {
						c.Details = after[k].Details
					}
				}
			}
		}
		if len(changed) == 0 {
			continue
		}
		row.Changed += len(changed)
		row.Prompts = append(row.Prompts, pa.prompt.ID)
		if !caughtHere {
			s := d.Suggest(pa.prompt, changed)
			if _, ok := gaps[s]; !ok {
				gapOrder = append(gapOrder, s)
			}
			gaps[s] = append(gaps[s], pa.prompt.ID)
		}
	}
	for i := range acc {
		c := &acc[i]
		switch {
		case c.Answers == 0:
			c.Outcome = NotApplicable
		case c.Caught > 0:
			c.Outcome = Caught
			row.CaughtBy = append(row.CaughtBy, c.Probe)
		default:
			c.Outcome = Missed
		}
		if c.Answers > 0 {
			c.ScoreDelta = c.deltaSum / float64(c.Answers)
		}
		row.Cells = append(row.Cells, c.Cell)
	}
	for _, s := range gapOrder {
		row.Gaps = append(row.Gaps, Gap{Prompts: gaps[s], Suggestion: s})
	}
	return row
}

// sameAnswer reports whether a drift left an answer as it was.
func sameAnswer(a, b *promptcanary.Response) bool {
	return a.Content == b.Content && a.FinishReason == b.FinishReason && reflect.DeepEqual(a.ToolCalls, b.ToolCalls)
}

// joinIDs lists ids comma-separated, at most ten, then how many more.
func joinIDs(ids []string) string {
	const most = 10
	if len(ids) <= most {
		return strings.Join(ids, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(ids[:most], ", "), len(ids)-most)
}

// others returns answers without the i-th: what an answer is judged
// against by probes that compare it with the prompt's other answers.
func others(answers []promptcanary.Response, i int) []promptcanary.Response {
	out := make([]promptcanary.Response, 0, len(answers)-1)
	out = append(out, answers[:i]...)
	return append(out, answers[i+1:]...)
}
