package report

import (
	"bytes"
	"fmt"
	"github.com/promptcanary/promptcanary/internal/quote"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/termtext"
)

// hostile is model output and details written to break every format.
var hostile = "<script>alert(1)</script> | a | b |\n|---|---|\n```\n<!-- hidden\r\n" +
	"\x1b[31mRED\x1b[0m \x1b]0;pwned\x07 \x1b[2J \u202eevil\u202c @everyone [link](https://example.com) **bold** $x$\n# heading\n> quote\n- item\n" +
	strings.Repeat("A", 10*1024)

func hostileRun() *promptcanary.Run {
	start := time.Date(2025, 5, 1, 9, 0, 0, 0, time.UTC)
	return &promptcanary.Run{
		RunID:     "run-x",
		SuiteName: "suite <b>" + hostile[:40],
		Provider:  promptcanary.ProviderConfig{ModelID: "fake/<img src=x onerror=alert(1)>"},
		StartedAt: start, FinishedAt: start.Add(time.Second),
		ProbeResults: []promptcanary.ProbeResult{
			{ProbeID: "p|1", ProbeName: "Name | with pipe", Category: "format", PromptID: "# prompt", Passed: false, Score: 0, Details: hostile},
			{ProbeID: "p2", ProbeName: "P2", Category: "format\n|x|", PromptID: "q", Passed: true, Score: 1, Details: hostile},
		},
		LLMResponses: []promptcanary.Response{{PromptID: "# prompt", Content: hostile}},
		Errors:       []promptcanary.CallError{{PromptID: "q", Sample: 1, Message: hostile, Attempts: 2}},
	}
}

func hostileDrift() *promptcanary.DriftReport {
	c := promptcanary.Comparison{ProbeID: "p|1", ProbeName: hostile[:60], Category: "format", PromptID: "`x`",
		BaselineScore: 1, CurrentScore: 0, ScoreDelta: -1, BaselinePassed: true,
		BaselineDetails: hostile, CurrentDetails: hostile, Evidence: hostile, Severity: "high",
		// Example answers reach the diffs of every format.
		Regression: true, SharedTestWith: hostile[:50], BaselineExample: hostile, CurrentExample: "````` " + hostile + " \x1b]8;;x\x07",
		BaselineDistinct: 3, CurrentDistinct: 2, Baseline: promptcanary.SampleStats{N: 5, Passes: 5}, Current: promptcanary.SampleStats{N: 5}}
	var cs []promptcanary.Comparison
	for _, st := range []promptcanary.Status{promptcanary.StatusRegression, promptcanary.StatusStable, promptcanary.StatusAdded,
		promptcanary.StatusRemoved, promptcanary.StatusNotMeasured, "<script>weird</script>"} {
		c.Status = st
		cs = append(cs, c)
	}
	return &promptcanary.DriftReport{
		ReportID: "r", SuiteName: hostile[:80], Provider: promptcanary.ProviderConfig{ModelID: hostile[:30]},
		Comparisons: cs, Method: "statistical", HasDrift: true, Severity: "high\"><script>",
		Summary: hostile, Notes: []string{hostile, "- not a list"}, Errors: []promptcanary.CallError{{PromptID: "q", Message: hostile}},
		Statistics: hostileStats(),
	}
}

// hostileKey is a unit key with markup, control and bidirectional
// characters, as a hostile report file could hold.
var hostileKey = "probe<script>x</script>|k|\\x1b\x1b[31mRED\u202e`code`@all"

// hostileStats is the statistical evidence of a report whose unit keys,
// test names, evidence, signals, warnings and prompt ids are hostile.
func hostileStats() *promptcanary.DriftStatistics {
	return &promptcanary.DriftStatistics{Seed: 1, Alpha: 0.01, Permutations: 10, BaselineSamples: 5, CurrentSamples: 5,
		Hypotheses: 2, Testable: 2, ScreeningLevel: 0.005, MinDetectableDrop: 0.2,
		Units: []promptcanary.TestedUnit{
			{Kind: promptcanary.UnitProbe, Key: hostileKey, Test: "fisher<script>", P: 0.001, Q: 0.002, Rejected: true, Severity: "high", Evidence: hostile},
			{Kind: "suite<b>|\x1b[2J", Key: hostile[:120], Test: "stratified_exact", P: 0.004, Q: 0.008, Rejected: true, Severity: "low\x1b[5m", Evidence: hostile},
			{Kind: promptcanary.UnitPair, Key: hostile[:90], Test: "mann_whitney_exact", P: 0.5, Q: 1, Screened: true, Evidence: hostile},
		},
		Signals:        []promptcanary.ChangeSignal{{Kind: "model<script>", PromptID: hostile[:50], P: 0.001, Q: 0.001, Flagged: true, Detail: hostile}},
		Warnings:       []string{"warning " + hostileKey, hostile, "| not | a | table |"},
		Nondeterminism: []promptcanary.PromptNondeterminism{{PromptID: hostile[:70], BaselineSamples: 5, BaselineDistinct: 5, CurrentSamples: 5, CurrentDistinct: 1}},
	}
}

// TestStatisticsEscaped checks that hostile unit keys and warnings reach
// every format escaped, in the statistical sections themselves.
func TestStatisticsEscaped(t *testing.T) {
	d := &promptcanary.DriftReport{ReportID: "r", SuiteName: "s", Method: "statistical", HasDrift: true, Severity: "high", Statistics: hostileStats()}
	tests := []struct {
		f       Format
		want    []string
		notWant []string
	}{
		{Terminal, []string{
			"HIGH      probe     probe<script>x</script>|k|\\x1b\\x1b[31mRED\\u202e`code`@all",
			"• warning probe<script>x</script>|k|\\x1b\\x1b[31mRED\\u202e`code`@all",
		}, []string{"\x1b", "\u202e"}},
		{Markdown, []string{
			"| 🔴 high | probe | probe&lt;script&gt;x&lt;/script&gt;&#124;k&#124;\\\\x1b\ufffd\\[31mRED\ufffd&#96;code&#96;@\u2060all |",
			"- warning probe&lt;script&gt;x&lt;/script&gt;&#124;k&#124;\\\\x1b\ufffd\\[31mRED\ufffd&#96;code&#96;@\u2060all",
			"- &#124; not &#124; a &#124; table &#124;",
		}, []string{"<script", "\x1b", "\u202e", "@all", "`"}},
		{HTML, []string{
			"<td class=\"id\">probe&lt;script&gt;x&lt;/script&gt;|k|\\x1b\ufffd[31mRED\ufffd`code`@all</td>",
			"<li>warning probe&lt;script&gt;x&lt;/script&gt;|k|\\x1b\ufffd[31mRED\ufffd`code`@all</li>",
			"<td>model&lt;script&gt;</td>", "<td>fisher&lt;script&gt;</td>",
		}, []string{"<script", "\x1b", "\u202e", "<b>"}},
	}
	for _, tc := range tests {
		t.Run(string(tc.f), func(t *testing.T) {
			var buf bytes.Buffer
			if err := Drift(&buf, tc.f, d, Options{Width: 100, Verbose: true}); err != nil {
				t.Fatal(err)
			}
			out := buf.String()
			checkOutput(t, out, tc.want, tc.notWant)
		})
	}
}

// render renders both hostile values in f with opts.
func renderHostile(t *testing.T, f Format, opts Options) []string {
	t.Helper()
	var a, b bytes.Buffer
	if err := Run(&a, f, hostileRun(), opts); err != nil {
		t.Fatalf("Run: %v", err)
	}
	if err := Drift(&b, f, hostileDrift(), opts); err != nil {
		t.Fatalf("Drift: %v", err)
	}
	return []string{a.String(), b.String()}
}

// checkHostileHTML fails t unless out, the HTML of a report of hostile
// input, is one self-contained document with nothing raw of that input and
// escaped in it.
func checkHostileHTML(t *testing.T, out, escaped string, alsoRaw ...string) {
	t.Helper()
	for _, bad := range append([]string{"<script", "<!-- hidden", "<img", "<b>", "\x1b", "\x07"}, alsoRaw...) {
		if strings.Contains(out, bad) {
			t.Errorf("got raw %q in HTML, want it escaped", bad)
		}
	}
	if !strings.Contains(out, escaped) {
		t.Errorf("got no %q, want the hostile text shown escaped", escaped)
	}
	if strings.Count(out, "<html") != 1 || !strings.HasSuffix(out, "</html>\n") {
		t.Errorf("got %d <html> and ending %q, want one complete document", strings.Count(out, "<html"), out[len(out)-10:])
	}
	for _, ext := range []string{"src=\"http", "href=\"http", "<link", "@import"} {
		if strings.Contains(out, ext) {
			t.Errorf("got external asset %q, want a self-contained file", ext)
		}
	}
}

func TestAdversarialHTML(t *testing.T) {
	for i, out := range renderHostile(t, HTML, Options{}) {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			checkHostileHTML(t, out, "&lt;script&gt;alert(1)&lt;/script&gt;")
		})
	}
}

func TestAdversarialMarkdown(t *testing.T) {
	for i, out := range renderHostile(t, Markdown, Options{}) {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			checkHostileMarkdown(t, stripFences(t, out))
		})
	}
}

// checkHostileMarkdown checks Markdown output, its fenced blocks stripped,
// made of hostile input: nothing of the input is raw, the tables hold, and
// no line starts a heading or a block the renderer did not write.
func checkHostileMarkdown(t *testing.T, out string) {
	t.Helper()
	for _, bad := range []string{"<script", "<!--", "```", "<img", "\x1b", "\r", "\x07", "@everyone", "[link]", "**bold**", "$x$", "\u202e"} {
		if strings.Contains(out, bad) {
			t.Errorf("got raw %q in Markdown, want it escaped", bad)
		}
	}
	checkTables(t, out)
	for n, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "#") && !strings.HasPrefix(l, "## ") && !strings.HasPrefix(l, "### ") {
			t.Errorf("line %d starts a heading we did not write: %.60q", n+1, l)
		}
		if strings.HasPrefix(l, ">") || strings.HasPrefix(l, "- -") || strings.HasPrefix(l, "    ") {
			t.Errorf("line %d starts a block from the input: %.60q", n+1, l)
		}
		if len(l) > 4000 {
			t.Errorf("line %d is %d bytes, want untrusted text cut", n+1, len(l))
		}
	}
}

// stripFences checks the fenced code blocks of Markdown output and returns
// the output without them. GitHub shows a fenced block's content as it is,
// so answers are put there unescaped; what must hold is that nothing in
// them can end the block early (no line of the content is a fence at least
// as long as the opening one), that every block is closed, and that no
// control or bidirectional-override character is inside.
func stripFences(t *testing.T, out string) string {
	t.Helper()
	var kept []string
	fence := ""
	for n, l := range strings.Split(out, "\n") {
		if fence == "" {
			if strings.HasPrefix(l, "```") {
				fence = l[:len(l)-len(strings.TrimLeft(l, "`"))]
				if rest := l[len(fence):]; rest != "text" {
					t.Errorf("line %d opens a fence with info %q, want %q", n+1, rest, "text")
				}
				continue
			}
			kept = append(kept, l)
			continue
		}
		trimmed := strings.TrimLeft(l, " ")
		if strings.HasPrefix(trimmed, fence) && strings.Trim(trimmed, "`") == "" {
			if l != fence {
				t.Errorf("line %d closes a %d-backtick fence with %q: the content ended the block", n+1, len(fence), l)
			}
			fence = ""
			continue
		}
		for _, r := range l {
			if (r < 0x20 && r != '\t') || r == 0x7f || (r >= 0x80 && r < 0xa0) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) {
				t.Errorf("line %d of a fenced block holds %U, want it replaced", n+1, r)
			}
		}
	}
	if fence != "" {
		t.Errorf("got a fenced block left open, want every block closed")
	}
	return strings.Join(kept, "\n")
}

// checkTables asserts that every row of every Markdown table has as many
// cell separators as its header.
func checkTables(t *testing.T, out string) {
	t.Helper()
	want, tables := -1, 0
	for n, l := range strings.Split(out, "\n") {
		if !strings.HasPrefix(l, "|") {
			want = -1
			continue
		}
		got := strings.Count(l, "|") - strings.Count(l, `\|`)
		if want < 0 {
			want = got
			tables++
			continue
		}
		if got != want {
			t.Errorf("line %d has %d cell separators, want %d like its header: %.80q", n+1, got, want, l)
		}
	}
	if tables == 0 {
		t.Errorf("got no tables, want some")
	}
}

func TestAdversarialTerminal(t *testing.T) {
	for _, color := range []bool{false, true} {
		for i, out := range renderHostile(t, Terminal, Options{Color: color, Verbose: true, Width: 100}) {
			t.Run(fmt.Sprint(color, i), func(t *testing.T) {
				plain := out
				if color {
					plain = strings.NewReplacer(ansiReset, "", ansiBold, "", ansiDim, "", ansiRed, "", ansiGreen, "", ansiYellow, "", ansiCyan, "", ansiStrike, "").Replace(out)
					if plain == out {
						t.Errorf("got no colour with Color set")
					}
				}
				for j, r := range plain {
					if (r < 0x20 && r != '\n') || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == '\u202e' {
						t.Fatalf("got control character %U at byte %d: %q", r, j, plain[max(0, j-20):min(len(plain), j+20)])
					}
				}
				if !strings.Contains(plain, `\x1b[31mRED`) {
					t.Errorf("got no escaped input sequence, want \\x1b shown as text")
				}
				for n, l := range strings.Split(plain, "\n") {
					if w := termtext.Width(l); w > 100 {
						t.Errorf("line %d is %d columns, want at most 100: %.60q", n+1, w, l)
					}
				}
			})
		}
	}
}

func TestMarkdownText(t *testing.T) {
	tests := []struct {
		name, in, want string
		limit          int
	}{
		{"plain", "hello world", "hello world", 100},
		{"html", "<b>&</b>", "&lt;b&gt;&amp;&lt;/b&gt;", 100},
		{"pipes", "a | b", "a &#124; b", 100},
		{"escaped pipe stays escaped", `a \| b`, `a \\&#124; b`, 100},
		{"code", "```go", "&#96;&#96;&#96;go", 100},
		{"emphasis and links", "*a* _b_ [c](d) ~e~", `\*a\* \_b\_ \[c\](d) \~e\~`, 100},
		{"newlines", "a\r\nb\n\nc\rd", "a<br>b<br>c<br>d", 100},
		{"leading heading", "# title", `\# title`, 100},
		{"leading list", "- item", `\- item`, 100},
		{"leading ordered list", "12. item", `12\. item`, 100},
		{"inner hash and dash", "issue #12 - ok", "issue #12 - ok", 100},
		{"leading spaces would make code", "    code", "code", 100},
		{"mention", "@octocat", "@\u2060octocat", 100},
		{"math", "$x$", "&#36;x&#36;", 100},
		{"controls", "a\x1b[31mb\x00c\u202ed", "a\ufffd\\[31mb\ufffdc\ufffdd", 100},
		{"invalid utf-8", "a\xffb", "a\ufffdb", 100},
		{"tab", "a\tb", "a b", 100},
		{"cut before escaping", "<<<<<", "&lt;&lt;&lt;…", 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := mdText(tc.in, tc.limit); got != tc.want {
				t.Errorf("mdText(%q) got %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

// formatted is what a formatting helper made of a value, and what it
// must make.
type formatted struct{ name, got, want string }

// checkFormatted fails each case whose got is not its want.
func checkFormatted(t *testing.T, cases []formatted) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Errorf("got %q, want %q", tc.got, tc.want)
			}
		})
	}
}

func TestNumbers(t *testing.T) {
	checkFormatted(t, []formatted{
		{"score", score(0.954), "0.95"},
		{"score one", score(1), "1.00"},
		{"percent", percent(29.0 / 30), "96.7%"},
		{"percent zero", percent(0), "0.0%"},
		{"delta up", delta(0.1), "+0.10"},
		{"delta down", delta(-0.25), "−0.25"},
		{"delta rounds to zero", delta(-0.001), "0.00"},
		{"thousands", quote.Thousands(1234567), "1,234,567"},
		{"thousands small", quote.Thousands(999), "999"},
		{"duration", duration(12345 * time.Millisecond), "12.3s"},
		{"duration short", duration(812 * time.Millisecond), "812ms"},
		{"duration unknown", duration(0), "—"},
		{"probe label", probeLabel("json_validity", "JSON validity"), "json_validity (JSON validity)"},
		{"probe label same", probeLabel("refusal", "refusal"), "refusal"},
	})
}

func TestMarkdownRowCap(t *testing.T) {
	run := benchRun(300, 0)
	var buf bytes.Buffer
	if err := Run(&buf, Markdown, run, Options{}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if want := fmt.Sprintf("…and %d more, listed in the JSON and HTML reports.", 300-mdMaxRows); !strings.Contains(out, want) {
		t.Errorf("got no %q, want the rows past the cap counted", want)
	}
	if got := strings.Count(out, "| ok-probe"); got != mdMaxRows {
		t.Errorf("got %d passing rows, want %d", got, mdMaxRows)
	}
}

func TestCategoryOrder(t *testing.T) {
	run := &promptcanary.Run{ProbeResults: []promptcanary.ProbeResult{
		{Category: "zeta", Passed: true}, {Category: "safety", Passed: true}, {Category: "alpha"}, {Category: "format", Passed: true},
	}}
	m := newRunModel(run)
	var got []string
	for _, c := range m.Categories {
		got = append(got, c.Category)
	}
	if want := "format safety alpha zeta"; strings.Join(got, " ") != want {
		t.Errorf("got %q, want %q", strings.Join(got, " "), want)
	}
}

// benchRun builds a run of n results, failing one in every failEvery (0: none).
func benchRun(n, failEvery int) *promptcanary.Run {
	start := time.Date(2025, 5, 1, 9, 0, 0, 0, time.UTC)
	r := &promptcanary.Run{RunID: "bench", SuiteName: "bench", StartedAt: start, FinishedAt: start.Add(time.Minute),
		Provider: promptcanary.ProviderConfig{ModelID: "fake/model"}}
	cats := promptcanary.Categories
	for i := range n {
		prompt := fmt.Sprintf("prompt-%03d", i/10)
		failed := failEvery > 0 && i%failEvery == 0
		name := "ok-probe"
		if failed {
			name = "bad-probe"
		}
		r.ProbeResults = append(r.ProbeResults, promptcanary.ProbeResult{
			ProbeID: fmt.Sprintf("%s-%d", name, i%10), ProbeName: "Probe", Category: cats[i%len(cats)], PromptID: prompt,
			Passed: !failed, Score: float64(i%100) / 100, Details: "details of the verdict with | a pipe and <tags> " + strings.Repeat("x", i%80),
		})
		if i%10 == 0 {
			r.LLMResponses = append(r.LLMResponses, promptcanary.Response{PromptID: prompt, Content: strings.Repeat("model output ", 40), TotalTokens: 300})
		}
	}
	return r
}

func BenchmarkRun(b *testing.B) {
	run := benchRun(1000, 5)
	benchFormats(b, func(w io.Writer, f Format) error { return Run(w, f, run, Options{Verbose: true}) })
}

// benchFormats measures render in every format, in a sub-benchmark each,
// with the bytes of one report as the bytes processed.
func benchFormats(b *testing.B, render func(w io.Writer, f Format) error) {
	for _, f := range Formats {
		b.Run(string(f), func(b *testing.B) {
			b.ReportAllocs()
			var buf bytes.Buffer
			for b.Loop() {
				buf.Reset()
				if err := render(&buf, f); err != nil {
					b.Fatal(err)
				}
			}
			b.SetBytes(int64(buf.Len()))
		})
	}
}

func TestUnsafeInHTMLScan(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"plain · text — ok\n\t", false},
		{"bell \x07", true},
		{"c1 \u009b", true},
		{"rlo \u202e", true},
		{"lri \u2066", true},
		{"zero width joiner \u200d is fine", false},
		{"nbsp \u00a0", false},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			if got := mayBeUnsafeInHTML([]byte(tc.in)); got != tc.want {
				t.Errorf("mayBeUnsafeInHTML(%q) got %v, want %v", tc.in, got, tc.want)
			}
		})
	}
}
