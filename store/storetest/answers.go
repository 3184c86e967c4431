package storetest

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/store"
)

// longAnswers is how many answers of promptcanary.DefaultMaxAnswerBytes
// testLongAnswers stores.
const longAnswers = 24

// longAnswer is answer i of testLongAnswers, DefaultMaxAnswerBytes long,
// with characters JSON escapes and characters of several bytes.
func longAnswer(i int) string {
	head := fmt.Sprintf("answer %d: \"quoted\" <b>&</b> \\ héllo 日本語 🦜 \u2028\t\n", i)
	body := strings.Repeat("The quick brown fox jumps over the lazy dog. ", promptcanary.DefaultMaxAnswerBytes/45+1)
	return (head + body)[:promptcanary.DefaultMaxAnswerBytes]
}

// testLongAnswers stores a run and a baseline of answers of the default
// bound, moved to spill files as a run leaves them, and reads them back:
// whole by default, and spilled under store.WithSpilledAnswers, when the
// baseline then holds no more than their heads in memory.
func testLongAnswers(t *testing.T, s store.Store) {
	ctx := context.Background()
	r := NewRun("long-answers", "s", "m", t0)
	r.Samples = longAnswers / 2
	r.LLMResponses = r.LLMResponses[:0]
	for i := range longAnswers {
		resp := promptcanary.Response{PromptID: fmt.Sprintf("p%d", i%2), Sample: i / 2, Content: longAnswer(i), FinishReason: "stop",
			Truncated: true, OriginalBytes: 5_000_000, Timestamp: t0}
		if err := resp.SpillContent(); err != nil {
			t.Fatal(err)
		}
		if resp.Spill == nil || len(resp.Content) > promptcanary.AnswerHeadBytes {
			t.Fatalf("answer %d not spilled: %d bytes held", i, len(resp.Content))
		}
		r.LLMResponses = append(r.LLMResponses, resp)
	}
	mustSaveRun(t, s, r)
	got, err := s.Run(ctx, r.RunID)
	if err != nil {
		t.Fatal(err)
	}
	for i, resp := range got.LLMResponses {
		if resp.Spill != nil || resp.Content != longAnswer(i) {
			t.Fatalf("run: answer %d: got %d bytes (spilled %v), want the whole %d", i, len(resp.Content), resp.Spill != nil, len(longAnswer(i)))
		}
		if !resp.Truncated || resp.OriginalBytes != 5_000_000 {
			t.Errorf("run: answer %d: got truncated %v of %d bytes, want the cut recorded", i, resp.Truncated, resp.OriginalBytes)
		}
	}
	b, err := s.Promote(ctx, r.RunID, "long")
	if err != nil {
		t.Fatal(err)
	}
	held := func() (uint64, *promptcanary.Baseline) {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		lb, err := s.Baseline(store.WithSpilledAnswers(ctx), b.SnapshotID)
		if err != nil {
			t.Fatal(err)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		return after.HeapAlloc - min(after.HeapAlloc, before.HeapAlloc), lb
	}
	least, lb := held()
	for range 2 {
		n, _ := held()
		least = min(least, n)
	}
	// The answers whole are 24 MiB; their heads 1.5 MiB.
	if limit := uint64(longAnswers * promptcanary.DefaultMaxAnswerBytes / 4); least > limit {
		t.Errorf("a baseline of %d answers of %d bytes holds %d bytes in memory, want at most %d", longAnswers, promptcanary.DefaultMaxAnswerBytes, least, limit)
	}
	for i := range lb.RunResult.LLMResponses {
		resp := &lb.RunResult.LLMResponses[i]
		whole, err := resp.FullContent()
		if err != nil {
			t.Fatal(err)
		}
		if resp.Spill == nil || whole != longAnswer(i) {
			t.Fatalf("baseline: answer %d: got %d bytes (spilled %v), want %d", i, len(whole), resp.Spill != nil, len(longAnswer(i)))
		}
		if resp.ContentRunes() != utf8.RuneCountInString(whole) || resp.ContentLen() != int64(len(whole)) {
			t.Errorf("baseline: answer %d: got %d characters of %d bytes, want %d of %d", i, resp.ContentRunes(), resp.ContentLen(), utf8.RuneCountInString(whole), len(whole))
		}
	}
	runtime.KeepAlive(lb)
}
