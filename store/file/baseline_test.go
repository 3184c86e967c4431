package file_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/store"
	"github.com/promptcanary/promptcanary/store/file"
	"github.com/promptcanary/promptcanary/store/storetest"
)

// pythonFixture is a baseline file as the original Python tool writes it.
const pythonFixture = "testdata/checkout-bot__openai-gpt-4o__20250301T120000_3f2b9c1e.json"

func TestLoadBaselinePythonFile(t *testing.T) {
	b, err := file.LoadBaseline(pythonFixture)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"snapshot id", b.SnapshotID, "3f2b9c1e-7d4a-4e8b-9f10-2a3b4c5d6e7f"},
		{"created at", b.CreatedAt.UTC(), time.Date(2025, 3, 1, 12, 0, 0, 123456000, time.UTC)},
		{"suite", b.SuiteName, "checkout-bot"},
		{"model", b.Provider.ModelID, "openai/gpt-4o"},
		{"seed", b.Provider.Seed, (*int64)(nil)},
		{"max tokens", b.Provider.MaxTokens, 1024},
		{"schema version", b.SchemaVersion, "0.1"},
		{"run schema version", b.RunResult.SchemaVersion, "0.1"},
		{"note", b.Note, "first known-good run before the model update"},
		{"run id", b.RunResult.RunID, "9c8b7a65-4321-4fed-8cba-0987654321fe"},
		{"started at (+00:00)", b.RunResult.StartedAt.UTC(), time.Date(2025, 3, 1, 11, 59, 58, 1000, time.UTC)},
		{"finished at (naive)", b.RunResult.FinishedAt, time.Date(2025, 3, 1, 11, 59, 59, 999999000, time.UTC)},
		{"results", len(b.RunResult.ProbeResults), 2},
		{"result 0", b.RunResult.ProbeResults[0].ProbeID + " " + string(b.RunResult.ProbeResults[0].Category), "json_format format"},
		{"result 1 passed", b.RunResult.ProbeResults[1].Passed, false},
		{"result 1 score", b.RunResult.ProbeResults[1].Score, 0.0},
		{"result 1 details", b.RunResult.ProbeResults[1].Details, `Response refused: matched "I can't help with that".`},
		{"result 0 metadata", b.RunResult.ProbeResults[0].Metadata, map[string]any{"missing_keys": []any{}, "parsed_keys": []any{"order_id", "total"}}},
		{"responses", len(b.RunResult.LLMResponses), 2},
		{"content", b.RunResult.LLMResponses[0].Content, `{"order_id": "A-1001", "total": 42.5}`},
		{"latency", b.RunResult.LLMResponses[0].LatencyMS, 812.4},
		{"tokens", b.RunResult.LLMResponses[0].TotalTokens, 75},
		{"timestamp (Z)", b.RunResult.LLMResponses[0].Timestamp, time.Date(2025, 3, 1, 11, 59, 58, 500000000, time.UTC)},
		{"null finish reason", b.RunResult.LLMResponses[1].FinishReason, ""},
		{"null latency", b.RunResult.LLMResponses[1].LatencyMS, 0.0},
		{"empty raw response", string(b.RunResult.LLMResponses[1].RawResponse), "{}"},
		{"timestamp (naive)", b.RunResult.LLMResponses[1].Timestamp, time.Date(2025, 3, 1, 11, 59, 59, 250000000, time.UTC)},
	}
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) {
			if diff := cmp.Diff(c.want, c.got); diff != "" {
				t.Errorf("got %v, want %v", c.got, c.want)
			}
		})
	}
	var raw map[string]any
	if err := json.Unmarshal(b.RunResult.LLMResponses[0].RawResponse, &raw); err != nil || raw["id"] != "chatcmpl-abc123" {
		t.Errorf("raw response: got %v, %v, want the provider body", raw, err)
	}
}

func TestLoadBaselineErrors(t *testing.T) {
	dir := t.TempDir()
	runFile := filepath.Join(dir, "run.json")
	data, err := store.MarshalIndent(storetest.NewRun("r1", "s", "m", time.Now()))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(runFile, data, 0o644); err != nil {
		t.Fatal(err)
	}
	badTime := filepath.Join(dir, "bad-time.json")
	if err := os.WriteFile(badTime, []byte(`{"snapshot_id": "x", "created_at": "yesterday"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path string
		want string
	}{
		{"testdata/truncated.json", `load baseline "testdata/truncated.json": truncated file: unexpected end of JSON input`},
		{"testdata/not-a-baseline.json", `load baseline "testdata/not-a-baseline.json": not a baseline file: no snapshot_id`},
		{runFile, `load baseline "` + runFile + `": not a baseline file: no snapshot_id (it looks like a run file)`},
		{badTime, `load baseline "` + badTime + `": parse time "yesterday": want RFC 3339 or ISO 8601 like 2006-01-02T15:04:05.999999Z`},
		{"testdata/missing.json", `load baseline "testdata/missing.json": open testdata/missing.json: no such file or directory`},
	}
	for _, tc := range tests {
		t.Run(filepath.Base(tc.path), func(t *testing.T) {
			_, err := file.LoadBaseline(tc.path)
			if err == nil {
				t.Fatalf("got nil error, want %q", tc.want)
			}
			if err.Error() != tc.want {
				t.Errorf("got %q, want %q", err, tc.want)
			}
		})
	}
	if _, err := file.LoadBaseline("testdata/missing.json"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("got %v, want an error wrapping os.ErrNotExist", err)
	}
}

func TestLoadRunErrors(t *testing.T) {
	tests := []struct {
		path string
		want string
	}{
		{pythonFixture, `load run "` + pythonFixture + `": not a run file: no run_id (it looks like a baseline file)`},
		{"testdata/truncated.json", `load run "testdata/truncated.json": truncated file: unexpected end of JSON input`},
	}
	for _, tc := range tests {
		t.Run(filepath.Base(tc.path), func(t *testing.T) {
			_, err := file.LoadRun(tc.path)
			if err == nil || err.Error() != tc.want {
				t.Errorf("got %v, want %q", err, tc.want)
			}
		})
	}
}

func TestBaselineName(t *testing.T) {
	created := time.Date(2025, 3, 1, 12, 34, 56, 789000000, time.UTC)
	tests := []struct {
		name, suite, model, id string
		created                time.Time
		want                   string
	}{
		{"original example", "checkout-bot", "openai/gpt-4o", "3f2b9c1e-7d4a-4e8b-9f10-2a3b4c5d6e7f", created,
			"checkout-bot__openai-gpt-4o__20250301T123456_3f2b9c1e.json"},
		{"slashes spaces colons", "My Suite/v2", "ollama/llama3:8b", "abcdef0123", created,
			"My_Suite-v2__ollama-llama3-8b__20250301T123456_abcdef01.json"},
		{"local time is written in UTC", "s", "m", "12345678", created.In(time.FixedZone("", 5*3600)),
			"s__m__20250301T123456_12345678.json"},
		{"cut to 40 characters", strings.Repeat("s", 45), strings.Repeat("m", 41), "short", created,
			strings.Repeat("s", 40) + "__" + strings.Repeat("m", 40) + "__20250301T123456_short.json"},
		{"cut by characters, not bytes", strings.Repeat("é", 41), "m", "12345678", created,
			strings.Repeat("é", 40) + "__m__20250301T123456_12345678.json"},
		{"characters no file system takes", "a\\b*c?d\"e<f>g|h\ni", "m", "12345678", created,
			"a-b-c-d-e-f-g-h-i__m__20250301T123456_12345678.json"},
		{"dots stay inside the name", "..", "..", "12345678", created,
			"..__..__20250301T123456_12345678.json"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := &promptcanary.Baseline{SnapshotID: tc.id, CreatedAt: tc.created, SuiteName: tc.suite, Provider: promptcanary.ProviderConfig{ModelID: tc.model}}
			if got := file.BaselineName(b); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// oneSample keeps the first sample of r: a run the original tool could
// have written.
func oneSample(r *promptcanary.Run) *promptcanary.Run {
	r.Samples = 1
	r.ProbeResults = slices.DeleteFunc(r.ProbeResults, func(p promptcanary.ProbeResult) bool { return p.Sample > 0 })
	r.LLMResponses = slices.DeleteFunc(r.LLMResponses, func(p promptcanary.Response) bool { return p.Sample > 0 })
	r.Errors = nil
	return r
}

func TestWriteBaseline(t *testing.T) {
	dir := t.TempDir()
	r := oneSample(storetest.NewRun("run-1", "s", "m", time.Date(2025, 3, 1, 12, 0, 0, 123456789, time.UTC)))
	r.Provider.ExtraParams = nil
	r.ProbeResults[0].Metadata = nil
	b := storetest.NewBaseline("snap-1", r, time.Date(2025, 3, 2, 0, 0, 0, 999, time.UTC), "note")
	path := filepath.Join(dir, "sub", file.BaselineName(b))
	if err := file.WriteBaseline(path, b); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	for _, want := range []string{
		"{\n  \"snapshot_id\": \"snap-1\",\n",
		`"created_at": "2025-03-02T00:00:00Z"`,
		`"started_at": "2025-03-01T12:00:00.123456Z"`,
		`"extra_params": {}`,
		`"metadata": {}`,
		`"_note": "note"`,
		`"schema_version": "1"`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("file does not contain %q", want)
		}
	}
	if strings.Contains(text, "null") || !strings.HasSuffix(text, "}\n") {
		t.Errorf("got a file with null values or no final newline:\n%.300s", text)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("got %d files, want only the baseline (no temporary file)", len(entries))
	}
	got, err := file.LoadBaseline(path)
	if err != nil {
		t.Fatal(err)
	}
	if !got.RunResult.StartedAt.Equal(r.StartedAt.Truncate(time.Microsecond)) || got.Note != "note" || len(got.RunResult.ProbeResults) != len(r.ProbeResults) {
		t.Errorf("got %v %q %d results, want the written baseline", got.RunResult.StartedAt, got.Note, len(got.RunResult.ProbeResults))
	}
	if b.Provider.ExtraParams != nil || b.RunResult.ProbeResults[0].Metadata != nil {
		t.Errorf("WriteBaseline modified its argument")
	}
}

// copyFile copies src into dir under its base name.
func copyFile(t *testing.T, src, dir string) string {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(dir, filepath.Base(src))
	if err := os.WriteFile(dst, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return dst
}

func TestSharedDirectoryWithPythonTool(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	py := copyFile(t, pythonFixture, dir)
	// Files that listing must skip without failing.
	copyFile(t, "testdata/truncated.json", dir)
	copyFile(t, "testdata/not-a-baseline.json", dir)
	for name, content := range map[string]string{
		"notes.txt":                  "not json",
		".x.json.tmp-123":            `{"snapshot_id": "tmp"`,
		"empty.json":                 "",
		"array.json":                 "[1, 2]",
		"bad-created-at.json":        `{"snapshot_id": "bad", "created_at": "soon", "run_result": {"run_id": "r"}}`,
		"checkout-bot__x__y_z.json":  `{"snapshot_id": 5}`,
		"run-at-top-level-run.json":  `{"run_id": "r", "suite_name": "checkout-bot"}`,
		"drift-at-top-level-x.json":  `{"report_id": "d", "suite_name": "checkout-bot"}`,
		"binary-garbage-file_1.json": "\x00\xff\xfe{",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "dir.json"), 0o755); err != nil {
		t.Fatal(err)
	}
	s := mustOpen(t, dir)
	defer s.Close()
	infos, err := s.Baselines(ctx, "")
	if err != nil {
		t.Fatalf("baselines: %v", err)
	}
	want := []store.BaselineInfo{{
		SnapshotID: "3f2b9c1e-7d4a-4e8b-9f10-2a3b4c5d6e7f", RunID: "9c8b7a65-4321-4fed-8cba-0987654321fe", Suite: "checkout-bot",
		Model: "openai/gpt-4o", CreatedAt: time.Date(2025, 3, 1, 12, 0, 0, 123456000, time.UTC),
		Note: "first known-good run before the model update", Path: py,
	}}
	if diff := cmp.Diff(want, infos); diff != "" {
		t.Errorf("baselines mismatch (-want +got):\n%s", diff)
	}
	b, err := s.LatestBaseline(ctx, "checkout-bot", "openai/gpt-4o")
	if err != nil {
		t.Fatalf("latest baseline: %v", err)
	}
	if b.SnapshotID != want[0].SnapshotID {
		t.Errorf("got %s, want %s", b.SnapshotID, want[0].SnapshotID)
	}
	// A baseline saved by this module next to it, for another model, under
	// the original naming.
	r := storetest.NewRun("go-run", "checkout-bot", "openai/gpt-4o-mini", time.Date(2025, 4, 1, 0, 0, 0, 0, time.UTC))
	info, err := s.SaveBaseline(ctx, storetest.NewBaseline("0a1b2c3d-go", r, time.Date(2025, 4, 1, 1, 2, 3, 0, time.UTC), ""))
	if err != nil {
		t.Fatal(err)
	}
	if wantPath := filepath.Join(dir, "checkout-bot__openai-gpt-4o-mini__20250401T010203_0a1b2c3d.json"); info.Path != wantPath {
		t.Errorf("path: got %q, want %q", info.Path, wantPath)
	}
	// The original matched slug substrings, so gpt-4o would have found the
	// newer gpt-4o-mini baseline; the model id is now compared exactly.
	b, err = s.LatestBaseline(ctx, "checkout-bot", "openai/gpt-4o")
	if err != nil || b.SnapshotID != want[0].SnapshotID {
		t.Errorf("latest for gpt-4o: got %v, %v, want the Python baseline", b, err)
	}
	b, err = s.LatestBaseline(ctx, "checkout-bot", "openai/gpt-4o-mini")
	if err != nil || b.SnapshotID != "0a1b2c3d-go" {
		t.Errorf("latest for gpt-4o-mini: got %v, %v, want 0a1b2c3d-go", b, err)
	}
	// A baseline file holds its run: both baselines' runs are listed, and
	// no copy of a run was written under runs/.
	if sums, err := s.Runs(ctx, store.RunFilter{BaselinesOnly: true}); err != nil || len(sums) != 2 || sums[0].RunID != "go-run" ||
		sums[1].RunID != "9c8b7a65-4321-4fed-8cba-0987654321fe" || !sums[1].IsBaseline {
		t.Errorf("baseline runs: got %+v, %v, want go-run and the Python baseline's run", sums, err)
	}
	if entries, err := os.ReadDir(filepath.Join(dir, "runs")); err == nil || len(entries) > 0 {
		t.Errorf("runs/: got %d files, %v, want no directory", len(entries), err)
	}
}

func TestLatestBaselineExactSuite(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t, t.TempDir())
	long := strings.Repeat("x", 40)
	suites := []string{"a/b", "a-b", "a b", "a_b", long + "-one", long + "-two"}
	for i, suite := range suites {
		r := storetest.NewRun("run-"+string(rune('a'+i)), suite, "m", time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
		// Later suites are newer, so a slug match would pick the wrong one.
		if _, err := s.SaveBaseline(ctx, storetest.NewBaseline("snap-"+string(rune('a'+i)), r, time.Date(2025, 1, 1, 0, 0, i, 0, time.UTC), "")); err != nil {
			t.Fatal(err)
		}
	}
	for i, suite := range suites {
		t.Run(suite, func(t *testing.T) {
			b, err := s.LatestBaseline(ctx, suite, "m")
			if err != nil {
				t.Fatal(err)
			}
			if want := "snap-" + string(rune('a'+i)); b.SnapshotID != want {
				t.Errorf("got %s, want %s", b.SnapshotID, want)
			}
		})
	}
}

func TestSaveBaselineReplacesFile(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := mustOpen(t, dir)
	r := storetest.NewRun("run-1", "s", "m", time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	b := storetest.NewBaseline("snap-1", r, time.Date(2025, 1, 1, 1, 0, 0, 0, time.UTC), "")
	first, err := s.SaveBaseline(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	b.CreatedAt = b.CreatedAt.Add(time.Hour)
	second, err := s.SaveBaseline(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	if first.Path == second.Path {
		t.Fatalf("got the same path %q twice, want a new name for the new time", first.Path)
	}
	if _, err := os.Stat(first.Path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("old file: got %v, want it removed", err)
	}
	matches, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(matches) != 1 || matches[0] != second.Path {
		t.Errorf("got files %v, want only %s", matches, second.Path)
	}
}

func TestListingSeesRewrittenFiles(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := mustOpen(t, dir)
	r := storetest.NewRun("run-1", "s", "m", time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	if err := s.SaveRun(ctx, r); err != nil {
		t.Fatal(err)
	}
	if sums, _ := s.Runs(ctx, store.RunFilter{}); len(sums) != 1 || sums[0].Results != 12 {
		t.Fatalf("got %+v, want one run with 12 results", sums)
	}
	// Another process rewrites the file: the listing must not serve the
	// cached summary.
	r.ProbeResults = r.ProbeResults[:1]
	other := mustOpen(t, dir)
	if err := other.SaveRun(ctx, r); err != nil {
		t.Fatal(err)
	}
	if sums, _ := s.Runs(ctx, store.RunFilter{}); len(sums) != 1 || sums[0].Results != 1 {
		t.Errorf("got %+v, want one run with 1 result", sums)
	}
	// A run file whose name is not its id is not listed.
	if err := os.Rename(filepath.Join(dir, "runs", "run-1.json"), filepath.Join(dir, "runs", "other.json")); err != nil {
		t.Fatal(err)
	}
	if sums, _ := s.Runs(ctx, store.RunFilter{}); len(sums) != 0 {
		t.Errorf("got %+v, want no run", sums)
	}
}

func TestNaNScoreFileIsValidJSON(t *testing.T) {
	dir := t.TempDir()
	s := mustOpen(t, dir)
	r := oneSample(storetest.NewRun("nan", "s", "m", time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)))
	r.ProbeResults[0].Score = math.NaN()
	if err := s.SaveRun(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "runs", "nan.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid(data) || !strings.Contains(string(data), `"score": null`) {
		t.Errorf("got invalid JSON or no null score:\n%.400s", data)
	}
}
