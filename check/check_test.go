package check

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/promptcanary/promptcanary"
	_ "github.com/promptcanary/promptcanary/probe/builtin"
	"github.com/promptcanary/promptcanary/provider"
	_ "github.com/promptcanary/promptcanary/provider/builtin"
	"github.com/promptcanary/promptcanary/store"
	"github.com/promptcanary/promptcanary/store/file"
	"github.com/promptcanary/promptcanary/store/sqlite"
	"github.com/promptcanary/promptcanary/store/storetest"
	"github.com/promptcanary/promptcanary/suite"
)

const suiteYAML = `name: t
provider: sim/stable
probes: [direct_answer]
prompts:
  - {id: capital, text: "What is the capital of France? Answer in one word.", expected_keywords: [Paris], probes: [expected_keywords]}
  - {id: json, text: "Return a JSON object for a fictional user with the keys name, age and city.", probes: [json_validity]}
`

func loadSuite(t *testing.T, yaml string) *suite.Suite {
	t.Helper()
	st, err := suite.Parse(filepath.Join(t.TempDir(), "canary.yaml"), []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func openStore(t *testing.T) store.Store {
	t.Helper()
	s, err := sqlite.Open(filepath.Join(t.TempDir(), "history.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// mustResolve resolves the targets and samples of st with s, failing the
// test on error.
func mustResolve(t *testing.T, st *suite.Suite, s Settings) ([]Target, int) {
	t.Helper()
	targets, samples, err := Resolve(st, s)
	if err != nil {
		t.Fatal(err)
	}
	return targets, samples
}

// mustRun runs req, failing the test on error.
func mustRun(t *testing.T, req RunRequest) *RunOutcome {
	t.Helper()
	out, err := Run(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func ptr[T any](v T) *T { return &v }

func TestResolveMergesFlagsFileAndDefaults(t *testing.T) {
	st := loadSuite(t, "name: t\nprovider: sim/stable\ntemperature: 0.5\nmax_tokens: 300\nsamples: 4\nprobes: [direct_answer]\nprompts:\n  - {id: a, text: hi}\n")
	targets, samples := mustResolve(t, st, Settings{MaxTokens: ptr(100)})
	if len(targets) != 1 || targets[0].Spec != "sim/stable" {
		t.Fatalf("got targets %+v, want sim/stable from the file", targets)
	}
	c := targets[0].Config
	if c.Temperature != 0.5 || c.MaxTokens != 100 || c.Seed == nil || *c.Seed != 42 || samples != 4 {
		t.Errorf("got temperature %v, max_tokens %d, seed %v, samples %d; want 0.5 (file), 100 (flag), 42 (default), 4 (file)",
			c.Temperature, c.MaxTokens, c.Seed, samples)
	}
	if targets[0].Timeout != DefaultTimeout {
		t.Errorf("got timeout %v, want %v", targets[0].Timeout, DefaultTimeout)
	}
	if targets[0].MaxAnswerBytes != promptcanary.DefaultMaxAnswerBytes {
		t.Errorf("got max_answer_bytes %d, want the default %d", targets[0].MaxAnswerBytes, promptcanary.DefaultMaxAnswerBytes)
	}
}

// TestResolveMaxAnswerBytes: the flag wins over canary.yaml, which wins
// over the default, and the engine gets what the target says.
func TestResolveMaxAnswerBytes(t *testing.T) {
	st := loadSuite(t, "name: t\nprovider: sim/stable\nmax_answer_bytes: 65536\nprobes: [direct_answer]\nprompts:\n  - {id: a, text: hi}\n")
	for _, tc := range []struct {
		name string
		flag *int
		want int
	}{{"file", nil, 65536}, {"flag", ptr(2048), 2048}} {
		t.Run(tc.name, func(t *testing.T) {
			targets, _ := mustResolve(t, st, Settings{MaxAnswerBytes: tc.flag})
			if got := engine(targets[0], Exec{}).MaxAnswerBytes; targets[0].MaxAnswerBytes != tc.want || got != tc.want {
				t.Errorf("got %d for the target, %d for the engine, want %d", targets[0].MaxAnswerBytes, got, tc.want)
			}
		})
	}
}

func TestResolveRejectsOutOfRangeValues(t *testing.T) {
	st := loadSuite(t, suiteYAML)
	tests := []struct {
		name  string
		s     Settings
		field string // the *FieldError's, "" for none
		want  string
	}{
		{"NaN temperature", Settings{Temperature: ptr(math.NaN())}, "temperature", "temperature NaN is out of range"},
		{"negative temperature", Settings{Temperature: ptr(-1.0)}, "temperature", "temperature -1 is out of range"},
		{"huge max tokens", Settings{MaxTokens: ptr(math.MaxInt)}, "max_tokens", "max_tokens 9223372036854775807 is out of range"},
		{"zero samples", Settings{Samples: ptr(0)}, "samples", "samples 0 is out of range"},
		{"too many samples", Settings{Samples: ptr(promptcanary.MaxSamples + 1)}, "samples", "samples 10001 is out of range"},
		{"negative retries", Settings{Retries: ptr(-1)}, "retries", "retries -1 is out of range"},
		{"negative rpm", Settings{RPM: -5}, "rpm", "rpm -5 is out of range"},
		{"zero timeout", Settings{Timeout: ptr(time.Duration(0))}, "timeout", "timeout 0s is out of range"},
		{"tiny answer bound", Settings{MaxAnswerBytes: ptr(100)}, "max_answer_bytes", "max_answer_bytes 100 is out of range"},
		{"day-long retry wait", Settings{MaxRetryWait: 25 * time.Hour}, "max_retry_wait", "max_retry_wait 25h0m0s is out of range"},
		{"provider twice", Settings{Providers: []string{"sim/stable", "sim/stable"}}, "", `provider "sim/stable" is given twice`},
		{"base url for sim", Settings{BaseURL: "http://127.0.0.1:1"}, "base_url", "base_url does not apply to sim/stable"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := Resolve(st, tc.s)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got error %v, want one containing %q", err, tc.want)
			}
			if !IsConfig(err) {
				t.Errorf("got %T, want a *ConfigError", err)
			}
			got := ""
			if fe, ok := errors.AsType[*FieldError](err); ok {
				got = fe.Field
			}
			if got != tc.field {
				t.Errorf("got field %q, want %q", got, tc.field)
			}
		})
	}
}

// TestResolveCutsHugeFlagValues gives --provider a value of 128 KiB, the
// most one argument can hold on Linux: the error quotes its first 200
// characters and its length, not the whole value.
func TestResolveCutsHugeFlagValues(t *testing.T) {
	st := loadSuite(t, suiteYAML)
	big := "sim/" + strings.Repeat("a", 128<<10)
	_, _, err := Resolve(st, Settings{Providers: []string{big, big}})
	want := `provider "sim/` + strings.Repeat("a", 196) + `…" (131,076 characters) is given twice`
	if err == nil || err.Error() != want {
		t.Fatalf("got error %.400v, want %.400q", err, want)
	}
}

// failingStore records nothing: every write fails, as a locked or full
// database would.
type failingStore struct{ store.Store }

func (failingStore) SaveRun(context.Context, *promptcanary.Run) error {
	return errors.New("database is locked")
}

func TestRunKeepsAMeasuredRunWhenTheHistoryFails(t *testing.T) {
	st := loadSuite(t, suiteYAML)
	targets, samples := mustResolve(t, st, Settings{})
	out, err := Run(context.Background(), RunRequest{Suite: st, Targets: targets, Samples: samples, History: failingStore{openStore(t)}})
	if err != nil {
		t.Fatalf("got error %v, want the failure in the outcome", err)
	}
	if len(out.Runs) != 1 || !out.Runs[0].Measured() {
		t.Fatalf("got runs %v, want one measured run", out.Runs)
	}
	if out.Recorded || len(out.Failures) != 1 || !strings.Contains(out.Failures[0].Error(), "database is locked") {
		t.Errorf("got recorded %v, failures %v; want not recorded and the store's error", out.Recorded, out.Failures)
	}
	if v := out.Verdict(false); v != Pass {
		t.Errorf("got verdict %v, want Pass: the run itself was measured", v)
	}
}

func TestRunThatMeasuredNothingHasNoVerdict(t *testing.T) {
	st := loadSuite(t, suiteYAML)
	targets, samples := mustResolve(t, st, Settings{Providers: []string{"exec/false"}, Retries: ptr(0)})
	hist := openStore(t)
	out, err := Run(context.Background(), RunRequest{Suite: st, Targets: targets, Samples: samples, History: hist, MaxErrors: 1000,
		SaveBaseline: true, BaselineDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if v := out.Verdict(false); v != Unmeasured {
		t.Errorf("got verdict %v, want Unmeasured whatever MaxErrors allows", v)
	}
	if len(out.Problems) != 1 || !strings.Contains(out.Problems[0].Reason, "nothing was measured") {
		t.Errorf("got problems %+v, want one saying nothing was measured", out.Problems)
	}
	if len(out.Baselines) != 0 || out.NoBaseline == "" {
		t.Errorf("got baselines %v (%q), want none and a reason", out.Baselines, out.NoBaseline)
	}
	if !out.Recorded {
		t.Error("want the failed run recorded in the history all the same")
	}
}

func TestCompareVerdicts(t *testing.T) {
	st := loadSuite(t, suiteYAML)
	hist := openStore(t)
	targets, samples := mustResolve(t, st, Settings{})
	base, err := Run(context.Background(), RunRequest{Suite: st, Targets: targets, Samples: samples, History: hist, SaveBaseline: true, BaselineDir: t.TempDir()})
	if err != nil || len(base.Baselines) != 1 {
		t.Fatalf("baseline: %v, %+v", err, base)
	}
	views := Baselines{History: hist}
	compare := func(s Settings) *CompareOutcome {
		t.Helper()
		targets, samples := mustResolve(t, st, s)
		out, err := Compare(context.Background(), CompareRequest{Suite: st, Targets: targets, Samples: samples, Baselines: views, BaselineModel: "sim/stable"})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	anySev := promptcanary.SeverityLow
	critical := promptcanary.SeverityCritical

	same := compare(Settings{})
	if v := same.Verdict(&anySev); v != Pass {
		t.Errorf("same model: got verdict %v, want Pass", v)
	}
	drifted := compare(Settings{Providers: []string{"sim/drifted"}})
	if v := drifted.Verdict(&anySev); v != Tripped {
		t.Errorf("drifted model, any severity: got verdict %v, want Tripped", v)
	}
	if v := drifted.Verdict(nil); v != Pass {
		t.Errorf("drifted model without a gate: got verdict %v, want Pass", v)
	}
	if sev := drifted.Pairs[0].Report.Severity; sev != promptcanary.SeverityCritical {
		t.Logf("drifted severity %s: the critical threshold is checked against it", sev)
		if v := drifted.Verdict(&critical); v != Pass {
			t.Errorf("drift below the threshold: got verdict %v, want Pass", v)
		}
	}
	stale := compare(Settings{MaxTokens: ptr(77)})
	if stale.Pairs[0].Report.Compared() != 0 {
		t.Fatalf("got %d pairs compared, want none: every prompt is stale", stale.Pairs[0].Report.Compared())
	}
	if v := stale.Verdict(&anySev); v != Unmeasured {
		t.Errorf("nothing compared: got verdict %v, want Unmeasured", v)
	}
}

// TestCompareReportsOnly: a compare of saved runs that asks for the
// reports only gets the same reports, recorded the same, with neither run
// nor baseline in its pairs, and whether each run was measured.
func TestCompareReportsOnly(t *testing.T) {
	st := loadSuite(t, suiteYAML)
	hist := openStore(t)
	targets, samples := mustResolve(t, st, Settings{})
	mustRun(t, RunRequest{Suite: st, Targets: targets, Samples: samples, History: hist, SaveBaseline: true, BaselineDir: t.TempDir()})
	drifted, _ := mustResolve(t, st, Settings{Providers: []string{"sim/drifted"}})
	saved := mustRun(t, RunRequest{Suite: st, Targets: drifted, Samples: samples})
	fixed := func() time.Time { return time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC) }
	var reports []*promptcanary.DriftReport
	for _, only := range []bool{false, true} {
		out, err := Compare(context.Background(), CompareRequest{Suite: st, Current: saved.Runs, Baselines: Baselines{History: hist},
			BaselineModel: "sim/stable", ReportsOnly: only})
		if err != nil {
			t.Fatal(err)
		}
		if len(out.Pairs) != 1 || !out.Recorded {
			t.Fatalf("ReportsOnly %v: got %d pairs, recorded %v; want one, recorded", only, len(out.Pairs), out.Recorded)
		}
		p := out.Pairs[0]
		if !p.Measured {
			t.Errorf("ReportsOnly %v: the run is not marked measured", only)
		}
		if gotRuns := p.Run != nil || p.Baseline != nil; gotRuns == only {
			t.Errorf("ReportsOnly %v: got run %v and baseline %v in the pair", only, p.Run != nil, p.Baseline != nil)
		}
		if _, err := hist.Drift(context.Background(), p.Report.ReportID); err != nil {
			t.Errorf("ReportsOnly %v: report not in the history: %v", only, err)
		}
		r := *p.Report
		r.ReportID, r.GeneratedAt = "", fixed()
		reports = append(reports, &r)
	}
	if !reports[0].HasDrift {
		t.Fatal("want the drifted run to drift, so that the reports say something")
	}
	if diff := cmp.Diff(reports[0], reports[1], cmpopts.EquateNaNs()); diff != "" {
		t.Errorf("the reports differ (-all +reports only):\n%s", diff)
	}
	// The reports-only compare consumed the saved run: its probe results
	// were folded and released before the baseline was read, so that a
	// compare of large runs never holds both runs' results at once.
	if n := len(saved.Runs[0].ProbeResults); n != 0 {
		t.Errorf("after a reports-only compare the saved run still holds %d probe results, want them released", n)
	}
}

func TestLatestBaselineNamesTheModelsThatHaveOne(t *testing.T) {
	st := loadSuite(t, suiteYAML)
	hist := openStore(t)
	targets, samples, _ := Resolve(st, Settings{})
	mustRun(t, RunRequest{Suite: st, Targets: targets, Samples: samples, History: hist, SaveBaseline: true, BaselineDir: t.TempDir()})
	_, err := Baselines{History: hist}.Latest(context.Background(), "t", "sim/noisy")
	var ce *ConfigError
	if !errors.As(err, &ce) || !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("got %v, want a *ConfigError wrapping store.ErrNotFound", err)
	}
	hints := strings.Join(ce.Hints(), "\n")
	if !strings.Contains(hints, "--baseline-provider sim/stable") {
		t.Errorf("got hints %q, want the model that has a baseline and the flag", hints)
	}
}

// TestRunFinishesABaselineACrashLeftPending plays a crash between recording
// a run with its pending-baseline mark and writing the baseline: the next
// Run writes that very baseline and records it, and the mark is gone.
func TestRunFinishesABaselineACrashLeftPending(t *testing.T) {
	st := loadSuite(t, suiteYAML)
	hist := openStore(t)
	dir := t.TempDir()
	targets, samples := mustResolve(t, st, Settings{})
	first := mustRun(t, RunRequest{Suite: st, Targets: targets, Samples: samples})
	crashed := first.Runs[0]
	b := store.NewBaseline(crashed, "", time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC))
	if err := hist.(store.Journal).SaveRunPending(context.Background(), crashed, store.Pending(b, dir)); err != nil {
		t.Fatal(err)
	}
	// The crash: neither the file nor the history's baseline was written.
	runs, _ := hist.Runs(context.Background(), store.RunFilter{})
	if len(runs) != 1 || !runs[0].BaselinePending {
		t.Fatalf("got runs %+v, want the crashed run marked pending", runs)
	}

	next := mustRun(t, RunRequest{Suite: st, Targets: targets, Samples: samples, History: hist})
	if len(next.Finished) != 1 || next.Finished[0].Err != nil || !strings.HasPrefix(next.Finished[0].Path, dir) {
		t.Fatalf("got finished %+v, want the pending baseline written into %s", next.Finished, dir)
	}
	got, err := hist.LatestBaseline(context.Background(), st.Name, "sim/stable")
	if err != nil || got.SnapshotID != b.SnapshotID {
		t.Fatalf("got baseline %v, %v; want snapshot %s in the history", got, err, b.SnapshotID)
	}
	runs, _ = hist.Runs(context.Background(), store.RunFilter{})
	for _, r := range runs {
		if r.BaselinePending {
			t.Errorf("run %s is still marked pending", r.RunID)
		}
	}
}

// TestCompareGivesSimilarityTheBaselinesAnswers: a probe that judges an
// answer against others (similarity) sees the baseline's answers in a
// compare, run now or from a saved run, and the run's own other samples
// when there is no baseline.
func TestCompareGivesSimilarityTheBaselinesAnswers(t *testing.T) {
	st := loadSuite(t, `name: t
provider: sim/stable
samples: 3
probes:
  - {type: similarity, min: 0.5}
prompts:
  - {id: capital, text: "What is the capital of France? Answer in one word."}
`)
	hist := openStore(t)
	targets, samples := mustResolve(t, st, Settings{})
	baseSamples, err := BaselineSamples(samples, nil)
	if err != nil || baseSamples != DefaultBaselineSamples {
		t.Fatalf("BaselineSamples(%d) = %d, %v; want %d", samples, baseSamples, err, DefaultBaselineSamples)
	}
	base := mustRun(t, RunRequest{Suite: st, Targets: targets, Samples: baseSamples, History: hist, SaveBaseline: true, BaselineDir: t.TempDir()})
	refsOf := func(r *promptcanary.Run) []any {
		var out []any
		for _, pr := range r.ProbeResults {
			out = append(out, pr.Metadata["references"])
		}
		return out
	}
	// The baseline (30 samples) compared its answers with its 29 others.
	for _, n := range refsOf(base.Runs[0]) {
		if fmt.Sprint(n) != "29" {
			t.Fatalf("baseline references: got %v, want 29 (leave-one-out)", refsOf(base.Runs[0]))
		}
	}
	out, err := Compare(context.Background(), CompareRequest{Suite: st, Targets: targets, Samples: samples, Baselines: Baselines{History: hist}, NoAdaptive: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range refsOf(out.Pairs[0].Run) {
		if fmt.Sprint(n) != "30" {
			t.Fatalf("current references: got %v, want the baseline's 30 answers", refsOf(out.Pairs[0].Run))
		}
	}
	// A saved run is judged again against the baseline.
	saved := mustRun(t, RunRequest{Suite: st, Targets: targets, Samples: samples})
	out, err = Compare(context.Background(), CompareRequest{Suite: st, Current: saved.Runs, Baselines: Baselines{History: hist}})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range refsOf(out.Pairs[0].Run) {
		if fmt.Sprint(n) != "30" {
			t.Fatalf("saved run references: got %v, want the baseline's 30 answers", refsOf(out.Pairs[0].Run))
		}
	}
	if fmt.Sprint(refsOf(saved.Runs[0])[0]) != "2" {
		t.Errorf("the saved run itself was changed: references %v", refsOf(saved.Runs[0]))
	}
}

// countingProvider counts the calls it passes on.
type countingProvider struct {
	provider.Provider
	calls *atomic.Int64
}

func (c countingProvider) Generate(ctx context.Context, req *provider.Request) (*promptcanary.Response, error) {
	c.calls.Add(1)
	return c.Provider.Generate(ctx, req)
}

func TestExecuteWrapSeesEveryCall(t *testing.T) {
	st := loadSuite(t, suiteYAML)
	targets, _ := mustResolve(t, st, Settings{})
	var calls atomic.Int64
	var specs []string
	x := Exec{Wrap: func(spec string, p provider.Provider) provider.Provider {
		specs = append(specs, spec)
		return countingProvider{p, &calls}
	}}
	runs, err := Execute(context.Background(), st, targets, 3, nil, x)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := calls.Load(), int64(len(runs[0].LLMResponses)); got != want || want != 6 {
		t.Errorf("got %d wrapped calls, want %d (2 prompts × 3 samples)", got, want)
	}
	if len(specs) != 1 || specs[0] != "sim/stable" {
		t.Errorf("got Wrap called with %v, want [sim/stable]", specs)
	}
}

// TestLatestBaselineFromHistoryOrDirectory checks which of the history and
// the baseline directory a lookup uses: the newer one (the history on a
// tie, without loading the directory's copy of the same baseline), and a
// newer file that cannot be read is named in a warning whatever is used.
func TestLatestBaselineFromHistoryOrDirectory(t *testing.T) {
	st := loadSuite(t, suiteYAML)
	hist := openStore(t)
	dir := t.TempDir()
	targets, samples, _ := Resolve(st, Settings{})
	mustRun(t, RunRequest{Suite: st, Targets: targets, Samples: samples, History: hist, SaveBaseline: true, BaselineDir: dir})
	ctx := context.Background()
	saved, err := hist.LatestBaseline(ctx, "t", "sim/stable")
	if err != nil {
		t.Fatal(err)
	}
	var warnings []string
	views := Baselines{History: hist, Dir: dir, Warn: func(w string) { warnings = append(warnings, w) }}
	got, err := views.Latest(ctx, "t", "sim/stable")
	if err != nil {
		t.Fatal(err)
	}
	// The file holds the same baseline with microsecond times: the
	// history's wins the tie.
	if got.SnapshotID != saved.SnapshotID || !got.CreatedAt.Equal(saved.CreatedAt) || len(warnings) > 0 {
		t.Errorf("same baseline in both: got %s created %v (warnings %q), want the history's %s created %v",
			got.SnapshotID, got.CreatedAt, warnings, saved.SnapshotID, saved.CreatedAt)
	}

	// A newer baseline file wins.
	newer := *saved
	newer.SnapshotID, newer.CreatedAt = "newer-snapshot", saved.CreatedAt.Add(time.Hour)
	fs, err := views.files()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fs.SaveBaseline(ctx, &newer); err != nil {
		t.Fatal(err)
	}
	if got, err = views.Latest(ctx, "t", "sim/stable"); err != nil || got.SnapshotID != "newer-snapshot" {
		t.Errorf("newer file: got %v, %v; want newer-snapshot", got, err)
	}

	// A file that cannot be read is named, though the history's baseline
	// is used.
	if err := os.Remove(filepath.Join(dir, file.BaselineName(&newer))); err != nil {
		t.Fatal(err)
	}
	broken := *saved
	broken.SnapshotID, broken.CreatedAt = "deadbeef", saved.CreatedAt.Add(2*time.Hour)
	if err := os.WriteFile(filepath.Join(dir, file.BaselineName(&broken)), []byte(`{"snapshot_id": "deadbeef", "run_res`), 0o644); err != nil {
		t.Fatal(err)
	}
	warnings = nil
	if got, err = views.Latest(ctx, "t", "sim/stable"); err != nil || got.SnapshotID != saved.SnapshotID {
		t.Errorf("broken newer file: got %v, %v; want the history's %s", got, err, saved.SnapshotID)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], file.BaselineName(&broken)) {
		t.Errorf("broken newer file: got warnings %q, want one naming it", warnings)
	}
}

// TestBaselineFilesGoThroughTheGivenOpener checks that Run and Baselines
// open baseline directories with the store.BaselineDir they are given,
// not a format of their own, and close what they open: the run saves
// through it, and a lookup reports its failure.
func TestBaselineFilesGoThroughTheGivenOpener(t *testing.T) {
	st := loadSuite(t, suiteYAML)
	hist := openStore(t)
	targets, samples, _ := Resolve(st, Settings{})
	dir := t.TempDir()
	var opened []string
	closed := 0
	files := func(dir string) (store.Store, error) {
		opened = append(opened, dir)
		s, err := file.OpenDir(dir)
		return storetest.Closes{Store: s, N: &closed}, err
	}
	out, err := Run(context.Background(), RunRequest{Suite: st, Targets: targets, Samples: samples, History: hist,
		SaveBaseline: true, BaselineDir: dir, BaselineFiles: files})
	if err != nil || len(out.Failures) > 0 || len(out.Baselines) != 1 {
		t.Fatalf("run: %v, failures %v, baselines %d; want one baseline saved", err, out.Failures, len(out.Baselines))
	}
	if len(opened) != 1 || opened[0] != dir || filepath.Dir(out.Baselines[0].Path) != dir {
		t.Fatalf("opened %q, saved %s; want %s opened once and the baseline in it", opened, out.Baselines[0].Path, dir)
	}
	for _, lookup := range []func() error{
		func() error {
			_, err := (Baselines{History: hist, Dir: dir, Files: files}).Latest(context.Background(), "t", "sim/stable")
			return err
		},
		func() error {
			_, err := (Baselines{History: hist, Dir: dir, Files: files}).Models(context.Background(), "t")
			return err
		},
	} {
		if err := lookup(); err != nil {
			t.Fatal(err)
		}
	}
	if len(opened) != 3 || closed != len(opened) {
		t.Errorf("opened the directory %d times, closed it %d times; want the run and two lookups each to close what they opened", len(opened), closed)
	}
	broken := errors.New("no such format")
	_, err = Baselines{History: hist, Dir: dir, Files: func(string) (store.Store, error) { return nil, broken }}.Latest(context.Background(), "t", "sim/stable")
	if !errors.Is(err, broken) {
		t.Fatalf("got %v, want the opener's error", err)
	}
}
