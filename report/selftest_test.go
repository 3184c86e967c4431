package report

import (
	"bytes"
	"encoding/json"
	"github.com/promptcanary/promptcanary"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// loadSelftest reads the self-test of the scaffolded suite
// (testdata/selftest.json, written by go test ./selftest -fixture).
func loadSelftest(t *testing.T) *promptcanary.SelftestResult {
	t.Helper()
	var r promptcanary.SelftestResult
	loadJSON(t, "selftest.json", &r)
	return &r
}

// loadJSON decodes testdata/name into v.
func loadJSON(t *testing.T, name string, v any) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("decode %s: %v", name, err)
	}
}

func TestSelftestGolden(t *testing.T) {
	for _, v := range goldenVariants {
		t.Run(v.suffix, func(t *testing.T) {
			var buf bytes.Buffer
			if err := Selftest(&buf, v.format, loadSelftest(t), v.opts); err != nil {
				t.Fatal(err)
			}
			golden(t, "selftest."+v.suffix+".golden", buf.Bytes())
		})
	}
}

func TestSelftestJSONRoundTrip(t *testing.T) {
	r := loadSelftest(t)
	var buf bytes.Buffer
	if err := Selftest(&buf, JSON, r, Options{}); err != nil {
		t.Fatal(err)
	}
	var back promptcanary.SelftestResult
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if len(back.Drifts) != len(r.Drifts) || back.Drifts[1].Gaps[0].Suggestion != r.Drifts[1].Gaps[0].Suggestion {
		t.Errorf("got a JSON report that does not read back as the result")
	}
}

func TestSelftestErrors(t *testing.T) {
	var buf bytes.Buffer
	if err := Selftest(&buf, JUnit, loadSelftest(t), Options{}); err == nil || !strings.Contains(err.Error(), "no JUnit form") {
		t.Errorf("got %v, want no JUnit form", err)
	}
	if err := Selftest(&buf, Terminal, nil, Options{}); err == nil {
		t.Error("got no error for a nil result")
	}
	if buf.Len() != 0 {
		t.Errorf("got %d bytes written on error, want none", buf.Len())
	}
}

// hostileSelftest is a self-test whose suite, ids, prompts, suggestions and
// notes hold markup, terminal escapes and bidirectional overrides, as a
// hostile baseline file or model answer could put there (suggestions quote
// words of the stored answers).
func hostileSelftest() *promptcanary.SelftestResult {
	det := &promptcanary.SelftestDetectable{Reason: hostile[:60]}
	return &promptcanary.SelftestResult{
		Suite: "suite <b>" + hostile[:40], BaselineID: hostileKey, Model: "fake/<img src=x onerror=alert(1)>", Answers: 1, Prompts: 1,
		Probes: []promptcanary.SelftestProbe{{ID: hostileKey, Type: "t<script>", Category: "format", Prompts: []string{hostile[:50]}, Judged: 1, Passed: 1, Detectable: det}},
		Drifts: []promptcanary.SelftestDrift{{
			ID: "d<script>", Name: hostile[:30], Description: hostile, Changed: 1, Prompts: []string{"# prompt"}, CaughtBy: []string{},
			Cells: []promptcanary.SelftestCell{{Probe: hostileKey, Outcome: promptcanary.SelftestMissed, Answers: 1}},
			Gaps:  []promptcanary.SelftestGap{{Prompts: []string{"`x`|y"}, Suggestion: promptcanary.SelftestSuggestion{ProbeType: "keyword_presence", Params: "required_keywords: [" + hostileKey + "]", Why: hostile}}},
		}, {
			ID: "caught", Name: "n", Description: "d", Changed: 1, Prompts: []string{"p"}, CaughtBy: []string{hostileKey},
			Cells: []promptcanary.SelftestCell{{Probe: hostileKey, Outcome: promptcanary.SelftestCaught, Answers: 1, Caught: 1, Prompts: []string{hostile[:20]}, Details: hostile}},
			Gaps:  []promptcanary.SelftestGap{{Prompts: []string{hostile[:70]}, Suggestion: promptcanary.SelftestSuggestion{ProbeType: "x", Why: "w"}}},
		}},
		Samples: &promptcanary.SelftestSamples{Baseline: 30, Current: 5}, Alpha: 0.01,
		Notes: []string{hostile, "- not a list"},
	}
}

func TestSelftestEscaped(t *testing.T) {
	tests := []struct {
		f       Format
		want    []string
		notWant []string
	}{
		{Terminal, []string{"probe<script>x</script>|k|\\x1b\\x1b[31mRED\\u202e`code`@all"}, []string{"\x1b", "\u202e", "\x07"}},
		{Markdown, []string{"probe&lt;script&gt;x&lt;/script&gt;&#124;k&#124;\\\\x1b\ufffd\\[31mRED\ufffd&#96;code&#96;@\u2060all"},
			[]string{"<script", "<img", "\x1b", "\u202e", "@all", "@everyone", "<!-- hidden", "\n# heading"}},
		{HTML, []string{"probe&lt;script&gt;x&lt;/script&gt;|k|\\x1b\ufffd[31mRED\ufffd`code`@all"},
			[]string{"<script", "<img", "<b>", "<!-- hidden", "\x1b", "\u202e", "\x07"}},
	}
	for _, tc := range tests {
		t.Run(string(tc.f), func(t *testing.T) {
			var buf bytes.Buffer
			if err := Selftest(&buf, tc.f, hostileSelftest(), Options{Width: 100, Verbose: true}); err != nil {
				t.Fatal(err)
			}
			out := buf.String()
			checkOutput(t, out, tc.want, tc.notWant)
		})
	}
	// Coloured terminal output holds only the renderer's own escapes.
	var buf bytes.Buffer
	if err := Selftest(&buf, Terminal, hostileSelftest(), Options{Color: true}); err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(buf.String(), "\n") {
		rest := l
		for _, s := range []string{ansiReset, ansiBold, ansiDim, ansiRed, ansiGreen, ansiYellow, ansiCyan} {
			rest = strings.ReplaceAll(rest, s, "")
		}
		if strings.ContainsAny(rest, "\x1b\x07\u202e") {
			t.Errorf("got a foreign escape in %q", l)
		}
	}
}

// TestSelftestNothingJudged: a probe that judged no answer has no pass
// rate: n/a (0/0), never 0.0% (0/0), in every format.
func TestSelftestNothingJudged(t *testing.T) {
	res := &promptcanary.SelftestResult{Suite: "s", BaselineID: "b", Model: "m", Answers: 1, Prompts: 1,
		Probes: []promptcanary.SelftestProbe{{ID: "never_applies", Type: "t", Category: "format", Judged: 0}}}
	for _, f := range []Format{Terminal, Markdown, HTML} {
		t.Run(string(f), func(t *testing.T) {
			var buf bytes.Buffer
			if err := Selftest(&buf, f, res, Options{Width: 100}); err != nil {
				t.Fatal(err)
			}
			if out := buf.String(); !strings.Contains(out, "n/a (0/0)") || strings.Contains(out, "0.0% (0/0)") {
				t.Errorf("got %s without n/a (0/0), or with 0.0%%:\n%s", f, out)
			}
		})
	}
}
