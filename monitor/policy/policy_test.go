package policy

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/drift"
)

// The reports of these tests come from drift.Compare on synthetic runs of
// four binary probes (two of them in one category) × eight prompts.

var testProbes = []struct {
	id  string
	cat promptcanary.Category
}{
	{"json_valid", promptcanary.CategoryFormat},
	{"format_regex", promptcanary.CategoryFormat},
	{"refusal", promptcanary.CategorySafety},
	{"tool_call", promptcanary.CategoryToolUse},
}

const testPrompts = 8

// passes gives the pass count of a pair out of n samples.
type passes func(probe, prompt, n int) int

func allPass(_, _, n int) int { return n }

// results builds the probe results of one run: n samples per prompt, the
// first pass(j, m, n) samples of pair (j, m) passing.
func results(n int, pass passes) []promptcanary.ProbeResult {
	var rs []promptcanary.ProbeResult
	for m := range testPrompts {
		for s := range n {
			for j, p := range testProbes {
				ok := s < pass(j, m, n)
				score := 0.0
				if ok {
					score = 1
				}
				rs = append(rs, promptcanary.ProbeResult{ProbeID: p.id, ProbeName: p.id, Category: p.cat,
					PromptID: fmt.Sprintf("prompt_%d", m+1), Sample: s, Passed: ok, Score: score})
			}
		}
	}
	return rs
}

func compare(t *testing.T, baseN int, base passes, curN int, cur passes) *promptcanary.DriftReport {
	t.Helper()
	bl := &promptcanary.Baseline{SnapshotID: "b", SuiteName: "s", RunResult: promptcanary.Run{SuiteName: "s", ProbeResults: results(baseN, base)}}
	run := &promptcanary.Run{SuiteName: "s", ProbeResults: results(curN, cur)}
	rep, err := drift.Compare(bl, run, drift.Options{Seed: 1, Now: func() time.Time { return time.Unix(0, 0) }, NewID: func() string { return "r" }})
	if err != nil {
		t.Fatalf("compare: %v", err)
	}
	return rep
}

// broken returns the pass counts of a current run whose listed pairs fail
// every sample, every other pair passing.
func broken(pairs ...[2]int) passes {
	return func(j, m, n int) int {
		if slices.Contains(pairs, [2]int{j, m}) {
			return 0
		}
		return n
	}
}

// probeDrop returns the pass counts of a run whose probe j passes k of n
// samples on every prompt.
func probeDrop(j, k int) passes {
	return func(jj, _, n int) int {
		if jj == j {
			return k
		}
		return n
	}
}

func names(us []promptcanary.IncidentUnit) []string {
	var out []string
	for _, u := range us {
		out = append(out, u.Unit+" "+u.Name)
	}
	return out
}

func TestFlaggedStatistical(t *testing.T) {
	rep := compare(t, 30, allPass, 10, broken([2]int{2, 0}))
	if !rep.HasDrift {
		t.Fatal("got no drift for a broken pair, want drift")
	}
	got := Flagged(rep)
	if len(got) == 0 {
		t.Fatal("got no flagged units, want the broken pair")
	}
	first := got[0]
	if first.Unit != promptcanary.UnitPair || first.Name != "refusal/prompt_1" {
		t.Errorf("got first unit %s %s, want pair refusal/prompt_1 (the most severe)", first.Unit, first.Name)
	}
	if first.Baseline != 1 || first.Current != 0 {
		t.Errorf("got rates %v → %v, want 1 → 0", first.Baseline, first.Current)
	}
	if first.Q <= 0 || first.Q > rep.Statistics.Alpha {
		t.Errorf("got q %v, want in (0, %v]", first.Q, rep.Statistics.Alpha)
	}
	// Each listed unit is a rejected unit of its own test, listed once.
	seen := map[string]bool{}
	for _, u := range got {
		key := u.Unit + " " + u.Name
		if seen[key] {
			t.Errorf("unit %s listed twice", key)
		}
		seen[key] = true
		var found bool
		for _, tu := range rep.Statistics.Units {
			if tu.Kind == u.Unit && tu.Key == u.Name && tu.Rejected && tu.SameTestAs == "" {
				found = true
			}
		}
		if !found {
			t.Errorf("unit %s is not a rejected unit with its own test", key)
		}
	}
	// The probe unit of refusal repeats the pair's test (only that pair
	// varies), so it is left out.
	for _, tu := range rep.Statistics.Units {
		if tu.Rejected && tu.SameTestAs != "" && seen[tu.Kind+" "+tu.Key] {
			t.Errorf("unit %s %s repeats %s but is listed", tu.Kind, tu.Key, tu.SameTestAs)
		}
	}
}

func TestFlaggedPooledRates(t *testing.T) {
	// Probe 0 passes 6 of 10 on every prompt: a probe-wide drop.
	rep := compare(t, 30, allPass, 10, probeDrop(0, 6))
	got := Flagged(rep)
	i := slices.IndexFunc(got, func(u promptcanary.IncidentUnit) bool { return u.Unit == promptcanary.UnitProbe })
	if i < 0 {
		t.Fatalf("got units %v, want the probe json_valid among them", names(got))
	}
	if u := got[i]; u.Name != "json_valid" || u.Baseline != 1 || u.Current != 0.6 {
		t.Errorf("got %s %s %v → %v, want probe json_valid 1 → 0.6", u.Unit, u.Name, u.Baseline, u.Current)
	}
	// Most severe first, ties by q.
	for k := 1; k < len(got); k++ {
		if got[k-1].Q > got[k].Q && severityOf(rep, got[k-1]).Rank() == severityOf(rep, got[k]).Rank() {
			t.Errorf("units %v not ordered by q within a severity", names(got))
		}
		if severityOf(rep, got[k-1]).Rank() < severityOf(rep, got[k]).Rank() {
			t.Errorf("units %v not ordered by severity", names(got))
		}
	}
}

func severityOf(rep *promptcanary.DriftReport, u promptcanary.IncidentUnit) promptcanary.Severity {
	s := promptcanary.SeverityNone
	for _, tu := range rep.Statistics.Units {
		if tu.Kind == u.Unit && tu.Key == u.Name && tu.Severity.Rank() > s.Rank() {
			s = tu.Severity
		}
	}
	return s
}

func TestFlaggedNone(t *testing.T) {
	if got := Flagged(nil); got != nil {
		t.Errorf("Flagged(nil): got %v, want nil", got)
	}
	rep := compare(t, 30, allPass, 10, allPass)
	if got := Flagged(rep); got != nil {
		t.Errorf("clean report: got %v, want nil", names(got))
	}
	if got := Confirm(rep, rep); got != nil {
		t.Errorf("Confirm of clean reports: got %v, want nil", names(got))
	}
}

func TestFlaggedSingleSample(t *testing.T) {
	rep := compare(t, 1, allPass, 1, broken([2]int{1, 3}, [2]int{0, 0}))
	if rep.Statistics != nil {
		t.Fatal("got a statistical report for one sample a side, want single-sample")
	}
	got := Flagged(rep)
	want := []string{"pair format_regex/prompt_4", "pair json_valid/prompt_1"}
	if g := names(got); !slices.Equal(g, want) {
		t.Fatalf("got %v, want %v (equal severity, then by name)", g, want)
	}
	if got[0].Baseline != 1 || got[0].Current != 0 || got[0].Q != 0 {
		t.Errorf("got %+v, want rates 1 → 0 and q 0", got[0])
	}
}

func TestConfirm(t *testing.T) {
	brokenA := compare(t, 30, allPass, 10, broken([2]int{2, 0})) // refusal/prompt_1
	brokenB := compare(t, 30, allPass, 10, broken([2]int{3, 5})) // tool_call/prompt_6
	brokenAB := compare(t, 30, allPass, 10, broken([2]int{2, 0}, [2]int{3, 5}))
	probe0 := compare(t, 30, allPass, 10, probeDrop(0, 6))       // json_valid on every prompt
	pairIn0 := compare(t, 30, allPass, 10, broken([2]int{0, 4})) // json_valid/prompt_5
	pairIn1 := compare(t, 30, allPass, 10, broken([2]int{1, 2})) // format_regex/prompt_3: same category as json_valid
	single := compare(t, 1, allPass, 1, broken([2]int{2, 0}))    // single-sample, refusal/prompt_1
	// json_valid passes 8 of 10 on every prompt: the probe is flagged,
	// its pairs are not; the suite unit is cleared to see the probe alone.
	probeOnly := unreject(compare(t, 30, allPass, 10, probeDrop(0, 8)), promptcanary.UnitSuite)
	// Both format probes pass 9 of 10 on every prompt; only the category
	// unit is kept.
	categoryOnly := unreject(compare(t, 30, allPass, 10, func(j, _, n int) int {
		if testProbes[j].cat == promptcanary.CategoryFormat {
			return n - 1
		}
		return n
	}), promptcanary.UnitSuite, promptcanary.UnitProbe)
	if g := names(Flagged(probeOnly)); !slices.Equal(g, []string{"probe json_valid"}) {
		t.Fatalf("probe drop: got %v, want [probe json_valid]", g)
	}
	if g := names(Flagged(categoryOnly)); !slices.Equal(g, []string{"category format"}) {
		t.Fatalf("category drop: got %v, want [category format]", g)
	}
	for _, r := range []*promptcanary.DriftReport{brokenA, brokenB, brokenAB, probe0, pairIn0, pairIn1} {
		if !r.HasDrift {
			t.Fatal("a test report has no drift")
		}
	}
	tests := []struct {
		name          string
		rule          Confirmation
		first, second *promptcanary.DriftReport
		want          []string // the units of second that confirm; nil: not confirmed
	}{
		{"same pair", Confirmation{}, brokenA, brokenA, []string{"pair refusal/prompt_1"}},
		{"other pair", Confirmation{Overlap: OverlapNested}, brokenA, brokenB, nil},
		// Two pairs vary, so the suite unit is a test of its own, flagged,
		// and overlaps any unit of the first.
		{"one of two", Confirmation{}, brokenA, brokenAB, []string{"pair refusal/prompt_1", "suite s"}},
		// One pair varies: the suite unit repeats the pair's test and
		// matches only as that pair.
		{"suite standing in for a pair", Confirmation{}, brokenAB, brokenB, []string{"pair tool_call/prompt_6"}},
		{"pair within probe, same only", Confirmation{}, probeOnly, pairIn0, nil},
		{"pair within probe, nested", Confirmation{Overlap: OverlapNested}, probeOnly, pairIn0, []string{"pair json_valid/prompt_5"}},
		{"pair of another probe, nested", Confirmation{Overlap: OverlapNested}, probeOnly, pairIn1, nil},
		{"probe over pair, nested", Confirmation{Overlap: OverlapNested}, pairIn0, probeOnly, []string{"probe json_valid"}},
		{"category over pair, nested", Confirmation{Overlap: OverlapNested}, categoryOnly, pairIn1, []string{"pair format_regex/prompt_3"}},
		{"category over pair, same only", Confirmation{}, categoryOnly, pairIn1, nil},
		{"category over probe, nested", Confirmation{Overlap: OverlapNested}, categoryOnly, probeOnly, []string{"probe json_valid"}},
		{"category over a pair of another category", Confirmation{Overlap: OverlapNested}, categoryOnly, brokenA, nil},
		{"suite first", Confirmation{}, probe0, pairIn1, []string{"pair format_regex/prompt_3"}},
		{"single-sample first", Confirmation{}, single, brokenA, []string{"pair refusal/prompt_1"}},
		{"nil first", Confirmation{}, nil, brokenA, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.rule.Confirm(tc.first, tc.second)
			if tc.want == nil {
				if got != nil {
					t.Errorf("got %v, want nil (not confirmed)", names(got))
				}
				return
			}
			if g := names(got); !slices.Equal(g, tc.want) {
				t.Errorf("got %v, want %v", g, tc.want)
			}
		})
	}
	// DefaultConfirmation is what Confirm applies.
	if got, want := names(Confirm(probe0, pairIn0)), names(DefaultConfirmation.Confirm(probe0, pairIn0)); !slices.Equal(got, want) {
		t.Errorf("Confirm: got %v, DefaultConfirmation.Confirm %v", got, want)
	}
}

// unreject returns a copy of rep whose units of the given kinds are not
// rejected: the report of a drop that those tests happened to miss, so
// that the matching of narrower units can be seen on its own (a suite unit
// overlaps every unit).
func unreject(rep *promptcanary.DriftReport, kinds ...string) *promptcanary.DriftReport {
	c := *rep
	st := *rep.Statistics
	st.Units = slices.Clone(st.Units)
	for i := range st.Units {
		if slices.Contains(kinds, st.Units[i].Kind) {
			st.Units[i].Rejected = false
		}
	}
	c.Statistics = &st
	return &c
}

func TestConfirmSuite(t *testing.T) {
	// Every pair 9/10 against 30/30: only broad units can see it.
	wide := compare(t, 30, allPass, 10, func(_, _, n int) int { return n - 1 })
	got := Flagged(wide)
	if !slices.Contains(names(got), "suite s") {
		t.Fatalf("got %v, want the suite unit flagged", names(got))
	}
	other := compare(t, 30, allPass, 10, broken([2]int{3, 5}))
	// A suite unit in the first overlaps anything in the second.
	if c := (Confirmation{}).Confirm(wide, other); !slices.Equal(names(c), names(Flagged(other))) {
		t.Errorf("suite first: got %v, want every unit of the second %v", names(c), names(Flagged(other)))
	}
	// A suite unit in the second overlaps anything in the first.
	if c := (Confirmation{}).Confirm(other, wide); !slices.Contains(names(c), "suite s") {
		t.Errorf("suite second: got %v, want the suite unit among them", names(c))
	}
}
