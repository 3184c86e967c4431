package cli

import (
	"bytes"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary/check"
	"github.com/promptcanary/promptcanary/internal/termtext"
)

func TestProgressBar(t *testing.T) {
	var buf bytes.Buffer
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := t0
	p := newProgressBar(&buf, []string{"sim/stable"}, 4, defaultWidth, func() time.Time { return now })
	now = t0.Add(2 * time.Second)
	p.update(check.Progress{Target: 0, Spec: "sim/stable", Done: 1, Total: 4})
	now = t0.Add(2*time.Second + 50*time.Millisecond)
	p.update(check.Progress{Target: 0, Spec: "sim/stable", Done: 2, Total: 4}) // within 100 ms of the last draw: skipped
	now = t0.Add(8 * time.Second)
	p.update(check.Progress{Target: 0, Spec: "sim/stable", Done: 4, Total: 4, Failed: 1}) // the last call is always drawn
	p.finish()
	got := buf.String()
	want := "\r\033[Ksim/stable [#######-----------------------] 1/4 calls  0:02 elapsed  ETA 0:06" +
		"\r\033[Ksim/stable [##############################] 4/4 calls  1 error  0:08 elapsed" +
		"\r\033[K"
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	buf.Reset()
	p.finish()
	if buf.Len() != 0 {
		t.Errorf("got %q after a second finish, want nothing", buf.String())
	}
}

func TestProgressBarOneLinePerProvider(t *testing.T) {
	var buf bytes.Buffer
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p := newProgressBar(&buf, []string{"sim/stable", "openai/gpt-4o", "evil/\x1b[2Jmodel"}, 10, defaultWidth, func() time.Time { return now })
	p.update(check.Progress{Target: 1, Done: 5, Total: 10, Failed: 2})
	got := buf.String()
	if strings.Count(got, "\n") != 2 {
		t.Errorf("got %q, want three lines", got)
	}
	if strings.Contains(got, "\x1b[2J") {
		t.Errorf("got %q: a provider name's escape sequence reached the terminal", got)
	}
	if !regexp.MustCompile(`\nopenai/gpt-4o +\[#{15}-{15}\] 5/10 calls  2 errors`).MatchString(strings.ReplaceAll(got, "\r\033[K", "")) {
		t.Errorf("got %q, want the second provider's row, padded to the longest name", got)
	}
	buf.Reset()
	now = now.Add(time.Second)
	p.update(check.Progress{Target: 0, Done: 10, Total: 10})
	if !strings.HasPrefix(buf.String(), "\033[2A") {
		t.Errorf("got %q, want the cursor moved up to redraw the three rows in place", buf.String())
	}
	var nilBar *progressBar
	printed := false
	nilBar.pause(func() { printed = true })
	nilBar.finish()
	if !printed {
		t.Error("a nil bar must still print what pause is given")
	}
}

func TestColorFor(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		w    any
		want bool
	}{
		{"buffer is not a terminal", nil, &bytes.Buffer{}, false},
		{"NO_COLOR wins", map[string]string{"NO_COLOR": "1"}, &bytes.Buffer{}, false},
		{"a regular file is not a terminal", nil, os.NewFile(0, os.DevNull), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := &app{getenv: func(k string) string { return tc.env[k] }}
			w, _ := tc.w.(interface{ Write([]byte) (int, error) })
			if got := a.colorFor(w); got != tc.want {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestOutputsSuffixed(t *testing.T) {
	o := outputs{json: "out/drift.json", md: "drift.md"}
	got := o.suffixed("openai/gpt-4o:latest")
	if got.json != "out/drift.openai-gpt-4o-latest.json" || got.md != "drift.openai-gpt-4o-latest.md" || got.html != "" {
		t.Errorf("got %+v", got)
	}
	if !strings.HasSuffix(o.json, "drift.json") {
		t.Error("suffixed changed its receiver")
	}
}

// TestProgressLineFitsTheTerminal checks that a progress row never reaches
// the terminal's last column (a wrapped row breaks the redraw in place):
// the bar narrows first, then the label is cut (issue 19 item 10).
func TestProgressLineFitsTheTerminal(t *testing.T) {
	r := progressRow{label: "openai-compatible/meta-llama/Llama-3.3-70B-Instruct-Turbo", done: 5, total: 10, fails: 2}
	for _, tc := range []struct {
		cols     int
		barCells int
		cut      bool
	}{
		{cols: 200, barCells: barMax},
		{cols: 118, barCells: 12},
		{cols: 90, barCells: barMin, cut: true},
	} {
		got := progressLine(r, 3*time.Second, tc.cols)
		if w := termtext.Width(got); w >= tc.cols {
			t.Errorf("cols %d: got %d columns, want fewer: %q", tc.cols, w, got)
		}
		bar := regexp.MustCompile(`\[([#-]*)\]`).FindStringSubmatch(got)
		if bar == nil || len(bar[1]) != tc.barCells {
			t.Errorf("cols %d: got %q, want a bar of %d cells", tc.cols, got, tc.barCells)
		}
		if cut := !strings.HasPrefix(got, r.label); cut != tc.cut {
			t.Errorf("cols %d: label cut %v, want %v: %q", tc.cols, cut, tc.cut, got)
		}
		if !strings.Contains(got, "5/10 calls  2 errors  0:03 elapsed  ETA 0:03") {
			t.Errorf("cols %d: got %q, want the counts and times whole", tc.cols, got)
		}
	}
	if got := progressLine(r, 3*time.Second, 40); termtext.Width(got) != 39 {
		t.Errorf("cols 40: got %q (%d columns), want the line cut to 39", got, termtext.Width(got))
	}
}
