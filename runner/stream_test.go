package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/textcut"
	"github.com/promptcanary/promptcanary/probe"
)

// lineFeed is a Feed of "prompt|content" lines, per lines per batch; a
// line "BAD" does not decode.
type lineFeed struct {
	lines []string
	per   int
	at    int
}

type lineBatch struct {
	lines []string
	first int
}

func (f *lineFeed) NewBatch() Batch { return &lineBatch{} }
func (f *lineFeed) Offset() int64   { return int64(f.at) }
func (f *lineFeed) Next(b Batch) error {
	lb := b.(*lineBatch)
	lb.lines, lb.first = nil, f.at+1
	if f.at >= len(f.lines) {
		return io.EOF
	}
	end := min(f.at+f.per, len(f.lines))
	lb.lines = f.lines[f.at:end]
	f.at = end
	return nil
}

func (b *lineBatch) Len() int       { return len(b.lines) }
func (b *lineBatch) Line(i int) int { return b.first + i }
func (b *lineBatch) Decode(i int) (*promptcanary.Response, error) {
	id, content, ok := strings.Cut(b.lines[i], "|")
	if !ok {
		return nil, fmt.Errorf("line %d: malformed", b.first+i)
	}
	return &promptcanary.Response{PromptID: id, Content: content, PromptTokens: 2, CompletionTokens: 3, TotalTokens: 5, LatencyMS: 1.5}, nil
}

// lengthProbe fails answers longer than 10 bytes, with their length in
// the details, so that a pair has many distinct failure details.
var lengthProbe = probe.Instance{ID: "short", Type: "short", Name: "Short", Category: promptcanary.CategoryCustom, Probe: probe.Func(func(_ context.Context, in probe.Input) probe.Result {
	r := in.Response
	if len(r.Content) <= 10 {
		return probe.Result{Passed: true, Score: 1, Details: fmt.Sprintf("%d bytes", len(r.Content))}
	}
	return probe.Result{Score: 10 / float64(len(r.Content)), Details: fmt.Sprintf("%d bytes, want at most 10", len(r.Content))}
})}

func streamPlan() *Plan {
	p := &Plan{Suite: "s", Config: promptcanary.ProviderConfig{ModelID: "replay/x.jsonl"}}
	for i := range 3 {
		p.Items = append(p.Items, Item{
			Prompt: promptcanary.Prompt{ID: fmt.Sprintf("p%d", i), Text: "q"},
			Probes: []probe.Instance{containsProbe("yes"), lengthProbe},
		})
	}
	return p
}

// streamLines are n answers to p0 and p1 (p2 has none) and to two prompts
// the plan does not hold.
func streamLines(n int) []string {
	var out []string
	for i := range n {
		id := []string{"p0", "p1", "p0", "other", "p1", "zz"}[i%6]
		content := strings.Repeat("yes ", i%5) + strings.Repeat("x", i%45)
		out = append(out, id+"|"+content)
	}
	return out
}

// TestJudgeStreamAgreesWithResults checks the aggregates of a stream
// judged on several workers, in batches of several sizes, against its
// results judged one by one: the counts, passes and mean scores of every
// pair, the details of its first answer, its first failing answer, and
// the failure details with their counts (the distinct details of one pair
// outnumber those kept, so the first ones in the input must be kept).
func TestJudgeStreamAgreesWithResults(t *testing.T) {
	plan := streamPlan()
	lines := streamLines(1800)

	// What the results say, judged in order.
	type want struct {
		n, passes int64
		sum       float64
		details   string
		example   string
		exLine    int64
		fails     map[string]int64
		order     []string
	}
	wants := map[promptcanary.PairKey]*want{}
	for j, l := range lines {
		id, content, _ := strings.Cut(l, "|")
		var item *Item
		for i := range plan.Items {
			if plan.Items[i].Prompt.ID == id {
				item = &plan.Items[i]
			}
		}
		if item == nil {
			continue
		}
		resp := &promptcanary.Response{PromptID: id, Content: content}
		for _, r := range Evaluate(&item.Prompt, resp, item.Probes) {
			w := wants[r.Key()]
			if w == nil {
				w = &want{details: r.Details, fails: map[string]int64{}}
				wants[r.Key()] = w
			}
			w.n++
			w.sum += r.Score
			if r.Passed {
				w.passes++
				continue
			}
			if w.exLine == 0 {
				w.exLine, w.example = int64(j+1), content
			}
			if _, ok := w.fails[r.Details]; !ok {
				w.order = append(w.order, r.Details)
			}
			w.fails[r.Details]++
		}
	}

	var first *promptcanary.RunSummary
	for _, workers := range []int{1, 3, 8} {
		for _, per := range []int{1, 7, 256} {
			t.Run(fmt.Sprintf("%d workers, %d lines a batch", workers, per), func(t *testing.T) {
				s, err := JudgeStream(context.Background(), plan, &lineFeed{lines: lines, per: per},
					StreamOptions{Workers: workers, Source: "x.jsonl", NewID: func() string { return "id" }, Now: func() time.Time { return time.Unix(0, 0) }})
				if err != nil {
					t.Fatal(err)
				}
				if s.Lines != int64(len(lines)) || s.Judged != int64(len(lines))*4/6 || s.UnknownLines != int64(len(lines))*2/6 {
					t.Errorf("lines %d, judged %d, unknown %d; want %d, %d, %d", s.Lines, s.Judged, s.UnknownLines, len(lines), len(lines)*4/6, len(lines)*2/6)
				}
				wantUnknown := []promptcanary.UnknownPrompt{{PromptID: "other", Lines: int64(len(lines)) / 6}, {PromptID: "zz", Lines: int64(len(lines)) / 6}}
				if diff := cmp.Diff(wantUnknown, s.Unknown); diff != "" {
					t.Errorf("unknown prompts (-want +got):\n%s", diff)
				}
				if s.TotalTokens != 5*s.Judged || s.PromptTokens != 2*s.Judged || math.Abs(s.LatencyMS-1.5*float64(s.Judged)) > 1e-6 {
					t.Errorf("tokens %d (%d prompt), latency %v for %d answers", s.TotalTokens, s.PromptTokens, s.LatencyMS, s.Judged)
				}
				if len(s.Errors) != 1 || s.Errors[0].PromptID != "p2" || !strings.Contains(s.Errors[0].Message, `no recorded answer for prompt "p2"`) {
					t.Errorf("errors: got %+v, want one for p2", s.Errors)
				}
				if len(s.Pairs) != len(wants) {
					t.Fatalf("%d pairs, want %d", len(s.Pairs), len(wants))
				}
				for _, p := range s.Pairs {
					w := wants[p.Key()]
					if w == nil {
						t.Fatalf("pair %s was not judged", p.Key())
					}
					if p.N != w.n || p.Passes != w.passes || math.Abs(p.MeanScore()-w.sum/float64(w.n)) > 1e-9 {
						t.Errorf("%s: %d/%d passed, mean %v; want %d/%d, mean %v", p.Key(), p.Passes, p.N, p.MeanScore(), w.passes, w.n, w.sum/float64(w.n))
					}
					if p.Details != w.details || p.ExampleLine != w.exLine || p.Example != textcut.Runes(w.example, exampleRunes, textcut.Ellipsis) {
						t.Errorf("%s: details %q, example line %d %q; want %q, %d %q", p.Key(), p.Details, p.ExampleLine, p.Example, w.details, w.exLine, w.example)
					}
					kept := map[string]int64{}
					var listed int64
					for _, d := range p.Failures {
						kept[d.Details] = d.N
						listed += d.N
					}
					if listed+p.OtherFailures != p.N-p.Passes {
						t.Errorf("%s: %d failures listed and %d others, want %d in all", p.Key(), listed, p.OtherFailures, p.N-p.Passes)
					}
					wantKept := min(len(w.order), promptcanary.MaxSummaryDetails)
					if len(kept) != wantKept {
						t.Errorf("%s: %d distinct details kept, want %d", p.Key(), len(kept), wantKept)
					}
					for _, d := range w.order[:wantKept] {
						if _, ok := kept[d]; !ok {
							t.Errorf("%s: details %q, among the first in the input, not kept", p.Key(), d)
						}
						// One worker sees every line: the counts are exact.
						if workers == 1 && kept[d] != w.fails[d] {
							t.Errorf("%s: %q counted %d times, want %d", p.Key(), d, kept[d], w.fails[d])
						}
					}
				}
				if first == nil {
					first = s
				} else if workers == 1 {
					if diff := cmp.Diff(first, s); diff != "" {
						t.Errorf("summary differs with batches of %d lines (-first +this):\n%s", per, diff)
					}
				}
			})
		}
	}
}

// TestJudgeStreamFirstMalformedLine: whichever worker finds its malformed
// line first, the error is the first malformed line of the input.
func TestJudgeStreamFirstMalformedLine(t *testing.T) {
	lines := streamLines(5000)
	for _, at := range []int{4999, 2500, 3000, 17} {
		lines[at] = "BAD"
	}
	for range 20 {
		_, err := JudgeStream(context.Background(), streamPlan(), &lineFeed{lines: lines, per: 3}, StreamOptions{Workers: 8})
		if err == nil || err.Error() != "line 18: malformed" {
			t.Fatalf("got %v, want line 18: malformed", err)
		}
	}
}

// TestJudgeStreamInterrupted: a cancelled stream returns what it judged,
// marked interrupted, with the context's error.
func TestJudgeStreamInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	feed := &lineFeed{lines: streamLines(10000), per: 10}
	s, err := JudgeStream(ctx, streamPlan(), feed, StreamOptions{Workers: 2, Progress: func(p StreamProgress) {
		if p.Lines >= 100 {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) || s == nil || !s.Interrupted {
		t.Fatalf("got %v (summary %v), want an interrupted summary and context.Canceled", err, s != nil)
	}
	if s.Lines < 100 || s.Lines >= 10000 {
		t.Errorf("%d lines judged, want from 100 to fewer than all", s.Lines)
	}
}

// TestCheckStream: probes that need other answers or call models cannot
// judge a stream.
func TestCheckStream(t *testing.T) {
	plan := streamPlan()
	if err := CheckStream(plan); err != nil {
		t.Fatalf("plain probes: %v", err)
	}
	ref := newRefProbe()
	ref.ID = "sim"
	plan.Items[1].Probes = append(plan.Items[1].Probes, ref)
	err := CheckStream(plan)
	if err == nil || !strings.Contains(err.Error(), `probe "sim" of prompt "p1" judges an answer against other answers`) {
		t.Errorf("got %v, want the referenced probe named", err)
	}
	if _, err := JudgeStream(context.Background(), plan, &lineFeed{lines: streamLines(10), per: 3}, StreamOptions{}); err == nil {
		t.Error("JudgeStream took a referenced probe")
	}
}
