package sqlite

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/store"
	"github.com/promptcanary/promptcanary/store/storetest"
)

// TestPromoteKeepsAnswersApart: a baseline promoted from a run with long
// answers keeps them in rows apart, as the run does, and the baseline
// Promote returns holds them whole.
func TestPromoteKeepsAnswersApart(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	long := strings.Repeat("lorem ipsum ", 2*promptcanary.AnswerHeadBytes/12)
	r := storetest.NewRun("run-long", "s", "m", t0)
	r.LLMResponses = r.LLMResponses[:1]
	r.LLMResponses[0].Content = long
	if err := r.LLMResponses[0].SpillContent(); err != nil {
		t.Fatal(err)
	}
	if err := s.SaveRun(ctx, r); err != nil {
		t.Fatal(err)
	}
	b, err := s.Promote(ctx, "run-long", "")
	if err != nil {
		t.Fatal(err)
	}
	if resp := b.RunResult.LLMResponses[0]; resp.Spill != nil || resp.Content != long {
		t.Errorf("promoted baseline: answer of %d bytes, spilled %v, want the %d whole", len(resp.Content), resp.Spill != nil, len(long))
	}
	for _, owner := range []string{store.RunOwner("run-long"), store.BaselineOwner(b.SnapshotID)} {
		var n int
		if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM answers WHERE owner = ?`, owner).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != 1 {
			t.Errorf("%s: %d answers stored apart, want 1", owner, n)
		}
	}
	var body []byte
	if err := s.db.QueryRowContext(ctx, `SELECT body FROM baselines WHERE snapshot_id = ?`, b.SnapshotID).Scan(&body); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(body, []byte("lorem ipsum lorem")) {
		t.Errorf("the baseline's body of %d bytes holds its long answer", len(body))
	}
}
