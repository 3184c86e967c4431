package file_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/store/file"
	"github.com/promptcanary/promptcanary/store/storetest"
)

// Listing a statistical baseline reads its head, not its run: the
// directory scan of every compare lists the baselines, and reading each
// file whole held a copy of the largest (9.5 MB at 2,000 prompts) at the
// compare's peak.
func TestListingBaselineDoesNotHoldItsRun(t *testing.T) {
	dir := t.TempDir()
	r := storetest.NewRun("run-big", "suite", "m", t1)
	// Text that looks like JSON's structure to a careless skipper.
	text := strings.Repeat(`a "quoted" {brace} [bracket] \ back\slash "}]" `, 8<<20/48)
	r.LLMResponses = append(r.LLMResponses, promptcanary.Response{PromptID: "p", ProviderModelID: "m", Content: text, Timestamp: t1})
	b := storetest.NewBaseline("5555ffff-big", r, t1, "kept after the run")
	path := filepath.Join(dir, file.BaselineName(b))
	if err := file.WriteBaseline(path, b); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil || st.Size() < 8<<20 {
		t.Fatalf("baseline file: %v, %v: want at least 8 MiB", st, err)

	}
	s := mustOpen(t, dir)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	infos, err := s.Baselines(context.Background(), "")
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if len(infos) != 1 || infos[0].SnapshotID != b.SnapshotID || infos[0].RunID != "run-big" || infos[0].Note != b.Note ||
		infos[0].Suite != "suite" || infos[0].Model != "m" || !infos[0].CreatedAt.Equal(t1) {
		t.Fatalf("listing: got %+v", infos)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 1<<20 {
		t.Errorf("listing a %d-byte baseline allocated %d bytes, want under 1 MiB", st.Size(), got)
	}
}

// The listing reads the same fields from a streamed file as from a whole
// one, whatever the order of the fields, and still refuses a file that is
// not whole.
func TestListingBaselineFields(t *testing.T) {
	run := `{"schema_version":"1","run_id":"r1","probe_results":[{"t":"}\"]{["}],"llm_responses":[]}`
	tests := []struct {
		name, body, note, err string
	}{
		{"note after the run", `{"snapshot_id":"s1","created_at":"2025-03-01T12:00:00Z","suite_name":"suite","provider":{"model_id":"m"},"run_result":` + run + `,"_note":"after"}` + "\n", "after", ""},
		{"note before the run", `{"_note":"before","snapshot_id":"s1","created_at":"2025-03-01T12:00:00Z","suite_name":"suite","provider":{"model_id":"m"},"run_result":` + run + `}`, "before", ""},
		{"fields after the run", `{"run_result":` + run + `,"snapshot_id":"s1","created_at":"2025-03-01T12:00:00Z","suite_name":"suite","provider":{"model_id":"m"}}`, "", ""},
		{"run id after the results", `{"snapshot_id":"s1","created_at":"2025-03-01T12:00:00Z","suite_name":"suite","provider":{"model_id":"m"},"run_result":{"probe_results":[],"run_id":"r1"}}`, "", ""},
		{"truncated in the run", `{"snapshot_id":"s1","created_at":"2025-03-01T12:00:00Z","suite_name":"suite","provider":{"model_id":"m"},"run_result":{"run_id":"r1","probe_results":[{"t":"}"}`, "", "truncated file"},
		{"text after the object", `{"snapshot_id":"s1","created_at":"2025-03-01T12:00:00Z","suite_name":"suite","provider":{"model_id":"m"},"run_result":` + run + `} {}`, "", "invalid character"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "suite__m__20250301T120000_s1.json"), []byte(tt.body), 0o644); err != nil {
				t.Fatal(err)
			}
			s := mustOpen(t, dir)
			infos, err := s.Baselines(context.Background(), "")
			if err != nil {
				t.Fatal(err)
			}
			if tt.err != "" {
				l, err := s.FindLatestBaseline(context.Background(), "suite", "m")
				if len(infos) != 0 || err == nil || l == nil || len(l.Skipped) != 1 || !strings.Contains(l.Skipped[0].Err.Error(), tt.err) {
					t.Fatalf("got %+v and %v, %v: want no listing and a skipped file (%s)", infos, l, err, tt.err)
				}
				return
			}
			if len(infos) != 1 || infos[0].SnapshotID != "s1" || infos[0].RunID != "r1" || infos[0].Note != tt.note || infos[0].Model != "m" || !infos[0].CreatedAt.Equal(t1) {
				t.Fatalf("got %+v, want s1 of run r1, note %q", infos, tt.note)
			}
		})
	}
}
