package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary/runner"
)

func TestStreamLine(t *testing.T) {
	tests := []struct {
		name string
		p    runner.StreamProgress
		size int64
		want string
	}{
		{"a third", runner.StreamProgress{Lines: 312000, Bytes: 200 << 20}, 600 << 20,
			"replay/x.jsonl [##########--------------------] 33% of 600 MiB  312,000 lines  0:10 elapsed  ETA 0:20"},
		{"done", runner.StreamProgress{Lines: 1000000, Bytes: 600 << 20}, 600 << 20,
			"replay/x.jsonl [##############################] 100% of 600 MiB  1,000,000 lines  0:10 elapsed"},
		{"unknown size", runner.StreamProgress{Lines: 7, Bytes: 100}, 0,
			"replay/x.jsonl  7 lines  0:10 elapsed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := streamLine("replay/x.jsonl", tc.p, tc.size, 10*time.Second, 120); got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

// TestStreamBarRedrawsAndErases: the bar redraws at most every 100 ms and
// erases its line when done; a nil bar does nothing.
func TestStreamBarRedrawsAndErases(t *testing.T) {
	var buf bytes.Buffer
	now := time.Unix(0, 0)
	b := newStreamBar(&buf, "replay/x.jsonl\x1b[2J", 1000, defaultWidth, func() time.Time { return now })
	for i := range 10 {
		now = now.Add(30 * time.Millisecond)
		b.update(runner.StreamProgress{Lines: int64(i), Bytes: int64(100 * i)})
	}
	if n := strings.Count(buf.String(), "\r\033[K"); n != 3 {
		t.Errorf("drew %d times in 300 ms, want 3:\n%q", n, buf.String())
	}
	if strings.Contains(buf.String(), "\x1b[2J") {
		t.Errorf("the label's escape reached the terminal: %q", buf.String())
	}
	buf.Reset()
	b.finish()
	if buf.String() != "\r\033[K" {
		t.Errorf("finish wrote %q, want the line erased", buf.String())
	}
	var nilBar *streamBar
	nilBar.update(runner.StreamProgress{})
	nilBar.finish()
}
