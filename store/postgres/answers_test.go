package postgres

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/store"
	"github.com/promptcanary/promptcanary/store/sqlite"
	"github.com/promptcanary/promptcanary/store/storetest"
)

// longText is answer i of TestAnswersApart, longer than
// promptcanary.AnswerHeadBytes.
func longText(i int) string {
	return fmt.Sprintf("answer %d \x00 \"é\" ", i) + strings.Repeat("lorem ipsum ", 3*promptcanary.AnswerHeadBytes/12)
}

// spilledRun is a run of id whose first two answers are long, spilled as a
// run leaves them, and whose third is the short text last.
func spilledRun(t *testing.T, id, last string) *promptcanary.Run {
	t.Helper()
	r := storetest.NewRun(id, "s", "m", t0)
	r.LLMResponses = r.LLMResponses[:0]
	for i, text := range []string{longText(0), longText(1), last} {
		resp := promptcanary.Response{PromptID: "p", Sample: i, Content: text, FinishReason: "stop", Timestamp: t0}
		if err := resp.SpillContent(); err != nil {
			t.Fatal(err)
		}
		r.LLMResponses = append(r.LLMResponses, resp)
	}
	return r
}

// storedAnswers returns the answers table's rows of owner, marker →
// content.
func storedAnswers(t *testing.T, s *Store, owner string) map[string][]byte {
	t.Helper()
	rows, err := s.pool.Query(context.Background(), `SELECT marker, content FROM answers WHERE owner = $1`, owner)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string][]byte{}
	for rows.Next() {
		var m, c []byte
		if err := rows.Scan(&m, &c); err != nil {
			t.Fatal(err)
		}
		out[string(m)] = c
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// checkApart checks that the long answers of owner, whose body column col
// of table holds, are rows of their own and not in the body.
func checkApart(t *testing.T, s *Store, owner, table, col, id string) {
	t.Helper()
	var body []byte
	if err := s.pool.QueryRow(context.Background(), `SELECT body FROM `+table+` WHERE `+col+` = $1`, id).Scan(&body); err != nil {
		t.Fatal(err)
	}
	if len(body) > promptcanary.AnswerHeadBytes || bytes.Contains(body, []byte("lorem ipsum lorem")) {
		t.Errorf("%s: body of %d bytes holds the long answers", owner, len(body))
	}
	got := storedAnswers(t, s, owner)
	if len(got) != 2 {
		t.Fatalf("%s: %d answers stored apart, want 2", owner, len(got))
	}
	for m, c := range got {
		if !strings.HasPrefix(m, "\x00promptcanary-answer-") || !strings.HasSuffix(m, "\x00") {
			t.Errorf("%s: marker %q", owner, m)
		}
		if string(c) != longText(0) && string(c) != longText(1) {
			t.Errorf("%s: an answer of %d bytes stored that is neither", owner, len(c))
		}
	}
}

// TestAnswersApart: long answers are rows of the answers table, written
// with their run and baseline, read back whole or spilled, exported,
// replaced on a new save and pruned with their run; a marker a model
// writes is read as text.
func TestAnswersApart(t *testing.T) {
	testDSN(t)
	t.Parallel()
	ctx := context.Background()
	s := openFresh(t)
	r := spilledRun(t, "run-long", "short")
	if err := s.SaveRun(ctx, r); err != nil {
		t.Fatal(err)
	}
	checkApart(t, s, "run:run-long", "runs", "run_id", "run-long")
	if err := s.SaveRun(ctx, r); err != nil { // replaced, with new markers
		t.Fatal(err)
	}
	checkApart(t, s, "run:run-long", "runs", "run_id", "run-long")
	got, err := s.Run(ctx, "run-long")
	if err != nil {
		t.Fatal(err)
	}
	checkWhole(t, "run", got)
	b, err := s.Promote(ctx, "run-long", "")
	if err != nil {
		t.Fatal(err)
	}
	checkApart(t, s, "baseline:"+b.SnapshotID, "baselines", "snapshot_id", b.SnapshotID)
	lb, err := s.Baseline(store.WithSpilledAnswers(ctx), b.SnapshotID)
	if err != nil {
		t.Fatal(err)
	}
	for i, resp := range lb.RunResult.LLMResponses[:2] {
		whole, err := resp.FullContent()
		if err != nil || resp.Spill == nil || whole != longText(i) {
			t.Errorf("baseline loaded spilled: answer %d of %d bytes, spilled %v, %v", i, len(whole), resp.Spill != nil, err)
		}
	}
	checkExport(t, s)
	checkForged(t, s)
	checkPruned(t, s)
}

// checkWhole checks that r holds its answers whole.
func checkWhole(t *testing.T, what string, r *promptcanary.Run) {
	t.Helper()
	for i, want := range []string{longText(0), longText(1), "short"} {
		resp := r.LLMResponses[i]
		if resp.Spill != nil || resp.Content != want {
			t.Errorf("%s: answer %d: %d bytes, spilled %v, want the %d whole", what, i, len(resp.Content), resp.Spill != nil, len(want))
		}
	}
}

// checkExport checks that an export holds the long answers whole.
func checkExport(t *testing.T, s *Store) {
	t.Helper()
	ctx := context.Background()
	for rec, err := range s.ExportRuns(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		if rec.Run.RunID == "run-long" {
			checkWhole(t, "exported run", rec.Run)
		}
	}
	n := 0
	for b, err := range s.ExportBaselines(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		checkWhole(t, "exported baseline", &b.RunResult)
		n++
	}
	if n != 1 {
		t.Errorf("exported %d baselines, want 1", n)
	}
}

// checkForged stores a run whose short answer is a stored marker of
// run-long, as a model could write one it saw, and checks that it reads
// back as that text.
func checkForged(t *testing.T, s *Store) {
	t.Helper()
	ctx := context.Background()
	var forged string
	for m := range storedAnswers(t, s, "run:run-long") {
		forged = m
	}
	r := storetest.NewRun("run-forged", "s", "m", t0)
	r.LLMResponses[0].Content = forged
	if err := s.SaveRun(ctx, r); err != nil {
		t.Fatal(err)
	}
	got, err := s.Run(ctx, "run-forged")
	if err != nil {
		t.Fatal(err)
	}
	if c := got.LLMResponses[0].Content; c != forged || got.LLMResponses[0].Spill != nil {
		t.Errorf("a forged marker read back as %d bytes, want the %d of the marker", len(c), len(forged))
	}
}

// checkPruned prunes an old run with long answers and checks that its
// answers went with it and the baseline's stayed.
func checkPruned(t *testing.T, s *Store) {
	t.Helper()
	ctx := context.Background()
	old := spilledRun(t, "run-old", "old")
	old.StartedAt = t0.AddDate(-1, 0, 0)
	if err := s.SaveRun(ctx, old); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Prune(ctx, t0.AddDate(0, -1, 0), false); err != nil {
		t.Fatal(err)
	}
	if n := len(storedAnswers(t, s, "run:run-old")); n != 0 {
		t.Errorf("%d answers of a pruned run left", n)
	}
	if n := len(storedAnswers(t, s, "run:run-long")); n != 2 {
		t.Errorf("%d answers of a kept run left, want 2", n)
	}
}

// TestCopyKeepsAnswersApart copies a history with long answers from
// PostgreSQL to SQLite and back into another schema, which keeps them
// apart as the first did.
func TestCopyKeepsAnswersApart(t *testing.T) {
	testDSN(t)
	t.Parallel()
	ctx := context.Background()
	from, to := openFresh(t), openFresh(t)
	if err := from.SaveRun(ctx, spilledRun(t, "run-long", "short")); err != nil {
		t.Fatal(err)
	}
	b, err := from.Promote(ctx, "run-long", "")
	if err != nil {
		t.Fatal(err)
	}
	lite, err := sqlite.Open(filepath.Join(t.TempDir(), "h.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer lite.Close()
	for _, c := range [][2]store.Store{{from, lite}, {lite, to}} {
		if _, err := store.Copy(ctx, c[0], c[1], store.CopyOptions{}); err != nil {
			t.Fatalf("copy %T to %T: %v", c[0], c[1], err)
		}
	}
	checkApart(t, to, "run:run-long", "runs", "run_id", "run-long")
	checkApart(t, to, "baseline:"+b.SnapshotID, "baselines", "snapshot_id", b.SnapshotID)
	checks, err := store.Verify(ctx, from, to)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range checks {
		if !k.OK() || k.SourceSum != k.TargetSum {
			t.Errorf("verify, %s: got %+v, want the same records on both sides", k.Kind, k)
		}
	}
	got, err := to.Run(ctx, "run-long")
	if err != nil {
		t.Fatal(err)
	}
	checkWhole(t, "copied run", got)
}

// TestSpilledLoadAllocates: loading a baseline of long answers spilled
// reads them a row at a time: it allocates far less than the answers
// weigh, where a body holding them all is read whole. Not parallel, so
// that no other test allocates meanwhile.
func TestSpilledLoadAllocates(t *testing.T) {
	testDSN(t)
	ctx := context.Background()
	s := openFresh(t)
	const n, size = 8, promptcanary.DefaultMaxAnswerBytes
	r := storetest.NewRun("run-big", "s", "m", t0)
	r.LLMResponses = r.LLMResponses[:0]
	for i := range n {
		resp := promptcanary.Response{PromptID: "p", Sample: i, Content: strings.Repeat(fmt.Sprint(i%10), size), FinishReason: "stop", Timestamp: t0}
		if err := resp.SpillContent(); err != nil {
			t.Fatal(err)
		}
		r.LLMResponses = append(r.LLMResponses, resp)
	}
	if err := s.SaveRun(ctx, r); err != nil {
		t.Fatal(err)
	}
	b, err := s.Promote(ctx, "run-big", "")
	if err != nil {
		t.Fatal(err)
	}
	least := uint64(math.MaxUint64)
	for range 3 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		lb, err := s.Baseline(store.WithSpilledAnswers(ctx), b.SnapshotID)
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		if c := lb.RunResult.LLMResponses[n-1].ContentLen(); c != size {
			t.Fatalf("answer %d: %d bytes, want %d", n-1, c, size)
		}
		least = min(least, after.TotalAlloc-before.TotalAlloc)
	}
	if limit := uint64(n * size / 2); least > limit {
		t.Errorf("loading %d answers of %d bytes spilled allocated %d bytes, want at most %d", n, size, least, limit)
	}
	t.Logf("loading %d answers of %d bytes spilled allocated %d bytes", n, size, least)
}

// A baseline lookup whose answers are kept apart reads them on a second
// connection: with a pool of one, it must have given the first back, or
// it waits for itself until its deadline.
func TestLatestBaselineOnOneConnection(t *testing.T) {
	testDSN(t)
	t.Parallel()
	s := openDSN(t, withParam(t, freshDSN(t), "pool_max_conns", "1"))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := s.SaveRun(ctx, spilledRun(t, "run-one-conn", "short")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Promote(ctx, "run-one-conn", ""); err != nil {
		t.Fatal(err)
	}
	b, err := s.LatestBaseline(store.WithSpilledAnswers(ctx), "s", "m")
	if err != nil {
		t.Fatalf("latest baseline on a pool of one connection: %v", err)
	}
	if got := len(b.RunResult.LLMResponses); got != 3 {
		t.Errorf("got %d answers, want 3", got)
	}
}
