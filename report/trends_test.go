package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/termtext"
	"github.com/promptcanary/promptcanary/store"
)

// loadTrends decodes a trend history fixture from testdata.
func loadTrends(t testing.TB, name string) *TrendData {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var d TrendData
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatalf("decode %s: %v", name, err)
	}
	return &d
}

// renderTrends renders d in f with opts and fails the test on error.
func renderTrends(t testing.TB, f Format, d *TrendData, opts Options) string {
	t.Helper()
	var buf bytes.Buffer
	if err := Trends(&buf, f, d, opts); err != nil {
		t.Fatalf("Trends(%s): %v", f, err)
	}
	return buf.String()
}

var trendDay0 = time.Date(2025, 6, 1, 9, 0, 0, 0, time.UTC)

// syntheticTrends is a history of n daily runs scoring every probe, with
// a compare every tenth run cycling through the severities.
func syntheticTrends(n int, probes ...string) *TrendData {
	d := &TrendData{Suite: "synthetic", Model: "fake/model"}
	sevs := []string{"none", "low", "medium", "high", "critical"}
	for i := range n {
		id := fmt.Sprintf("run-%04d", i)
		at := trendDay0.Add(time.Duration(i) * 24 * time.Hour)
		d.Runs = append(d.Runs, store.RunSummary{RunID: id, StartedAt: at, Results: 4 * len(probes), Passed: 3 * len(probes),
			Score: float64(i%10) / 9, PassRate: float64((i+5)%10) / 9})
		for j, p := range probes {
			d.Scores = append(d.Scores, store.ProbeScore{RunID: id, StartedAt: at, ProbeID: p, Mean: float64((i*7+j*3)%10) / 9, PassRate: 0.75, N: 4})
		}
		if i%10 == 9 {
			d.Drifts = append(d.Drifts, store.DriftSummary{ReportID: fmt.Sprintf("drift-%04d", i), CurrentRunID: id,
				GeneratedAt: at.Add(time.Minute), Severity: promptcanary.Severity(sevs[(i/10)%len(sevs)])})
		}
	}
	return d
}

func TestTrendsGolden(t *testing.T) {
	variants := []struct {
		suffix string
		format Format
		opts   Options
	}{
		{"terminal", Terminal, Options{}},
		{"terminal-color", Terminal, Options{Color: true}},
		{"markdown", Markdown, Options{}},
		{"html", HTML, Options{}},
		{"json", JSON, Options{}},
	}
	for _, fixture := range []string{"trends_history", "trends_single", "trends_empty", "trends_unmeasured"} {
		for _, v := range variants {
			t.Run(fixture+"/"+v.suffix, func(t *testing.T) {
				got := renderTrends(t, v.format, loadTrends(t, fixture+".json"), v.opts)
				golden(t, fixture+"."+v.suffix+".golden", []byte(got))
			})
		}
	}
}

func TestTrendsContent(t *testing.T) {
	history := loadTrends(t, "trends_history.json")
	noScores := &TrendData{Suite: "s", Model: "m",
		Runs:   []store.RunSummary{{RunID: "r1", StartedAt: trendDay0, Score: 1, PassRate: 1}},
		Drifts: []store.DriftSummary{{ReportID: "old", CurrentRunID: "pruned", GeneratedAt: trendDay0.Add(-time.Hour), Severity: "high"}}}
	tests := []struct {
		name string
		d    *TrendData
		f    Format
		want []string
	}{
		{"empty terminal", loadTrends(t, "trends_empty.json"), Terminal, []string{"runs          none", "No runs stored for this suite and model yet"}},
		{"empty markdown", loadTrends(t, "trends_empty.json"), Markdown, []string{"no runs stored yet"}},
		{"empty html", loadTrends(t, "trends_empty.json"), HTML, []string{`<p class="notes">No runs stored for this suite and model yet`}},
		{"single terminal", loadTrends(t, "trends_single.json"), Terminal, []string{"Score history · 1 run\n", "  score          █  0.97", "no drift reports yet"}},
		{"single markdown", loadTrends(t, "trends_single.json"), Markdown, []string{"1 run on 2025-05-01 09:00:00 UTC", "| Score | `█` | 0.97 | 0.97 | 0.97 |"}},
		{"single html", loadTrends(t, "trends_single.json"), HTML, []string{"No drift reports yet", ">run start (UTC)</text>"}},
		{"runs without scores terminal", noScores, Terminal, []string{"No probe scores stored for these runs.", "no compares in these runs", "1 earlier compare not shown"}},
		{"runs without scores html", noScores, HTML, []string{"<p class=\"notes\">No probe scores stored for these runs.</p>", "No compare of these runs."}},
		{"runs without scores markdown", noScores, Markdown, []string{"| Drift | `─` |  |  | — |", "1 earlier compare not shown"}},
		{"history worst probe first", history, Terminal, []string{"Probes × runs · 5 probes, worst latest mean first\n  refusal_policy     ▓▓▓▒▒▒▒▒▒  0.62\n  length_limit"}},
		{"history drift timeline", history, Terminal, []string{"  drift           ────·──H──L─  low", "3 compares (1 high, 1 low, 1 none)"}},
		{"history sparkline with n/a", history, Terminal, []string{"  score           ██?███▇▆▆▇██  0.90"}},
		{"history markdown drift", history, Markdown, []string{"| Drift | `────·──H──L─` |  |  | 🟡 low |", "| 2025-05-08 09:00:00 UTC | run-0508 | 0.68 | 67.5% | 🔴 high |"}},
		{"history html tooltips", history, HTML, []string{
			"<title>run-0508 · 2025-05-08 09:00:00 UTC · score 0.68 · pass rate 67.5% · 27/40 results passed · 2 call errors · drift high</title>",
			`<circle class="mk-high" cx="630" cy="12" r="8"/>`,
			`fill="#dc2626"`, // format_json at 0.25 is red
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := renderTrends(t, tc.f, tc.d, Options{})
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("got output without %q, want it:\n%s", w, got)
				}
			}
		})
	}
}

// TestTrendsTerminalWidth checks that the charts use the width they are
// given and never more, whatever the labels.
func TestTrendsTerminalWidth(t *testing.T) {
	d := syntheticTrends(200, "short", strings.Repeat("very_long_probe_instance_id_", 3), "格式检查_中文探针名称很长很长很长很长", "tab\there\x1b[2J")
	tests := []struct {
		width    int
		wantCols int // the 32-column label cap, or what leaves 10 run columns
	}{
		{0, 54},
		{20, 10},
		{40, 10},
		{60, 14},
		{80, 34},
		{120, 74},
		{200, 154},
	}
	for _, tc := range tests {
		for _, color := range []bool{false, true} {
			t.Run(fmt.Sprintf("%d/color=%v", tc.width, color), func(t *testing.T) {
				opts := Options{Width: tc.width, Color: color, Verbose: true}
				out := stripANSI(renderTrends(t, Terminal, d, opts))
				limit := opts.width()
				for i, l := range strings.Split(out, "\n") {
					if w := termtext.Width(l); w > limit {
						t.Errorf("line %d is %d columns, want at most %d: %q", i+1, w, limit, l)
					}
				}
				if want := fmt.Sprintf("Score history · last %d of 200 runs", tc.wantCols); !strings.Contains(out, want) {
					t.Errorf("got no %q in:\n%s", want, out)
				}
				for _, label := range []string{"score", "pass rate", "drift"} {
					cells := chartCells(t, out, label)
					if got := len([]rune(cells)); got != tc.wantCols {
						t.Errorf("%s row: got %d columns, want %d: %q", label, got, tc.wantCols, cells)
					}
				}
			})
		}
	}
}

// chartCells returns the cells of the chart row labelled label.
func chartCells(t *testing.T, out, label string) string {
	t.Helper()
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) == 3+strings.Count(label, " ") && strings.HasPrefix(l, trendIndent+label+" ") {
			return f[len(f)-2]
		}
	}
	t.Fatalf("got no %q chart row in:\n%s", label, out)
	return ""
}

func TestTrendsProbeRows(t *testing.T) {
	probes := make([]string, 40)
	for i := range probes {
		probes[i] = fmt.Sprintf("probe_%02d", i)
	}
	d := syntheticTrends(5, probes...)
	tests := []struct {
		verbose  bool
		wantRows int
		wantMore string
	}{
		{false, trendProbeRows, "10 better probes not listed (--verbose lists them)"},
		{true, 40, ""},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprint("verbose=", tc.verbose), func(t *testing.T) {
			out := renderTrends(t, Terminal, d, Options{Verbose: tc.verbose})
			if got := strings.Count(out, "\n  probe_"); got != tc.wantRows {
				t.Errorf("got %d probe rows, want %d", got, tc.wantRows)
			}
			if got := strings.Contains(out, "not listed"); got != (tc.wantMore != "") || !strings.Contains(out, tc.wantMore) {
				t.Errorf("got note %v, want %q:\n%s", got, tc.wantMore, out)
			}
		})
	}
}

func TestTrendsMarkdownLimits(t *testing.T) {
	probes := make([]string, 12)
	for i := range probes {
		probes[i] = fmt.Sprintf("p%02d", i)
	}
	out := renderTrends(t, Markdown, syntheticTrends(150, probes...), Options{})
	for _, want := range []string{
		"| Trend (last 100 of 150 runs, oldest → newest) |",
		"…and 2 better probes, listed in the JSON and HTML reports.",
		"…and 130 earlier runs, listed in the JSON and HTML reports.",
		"| 2025-10-28 09:00:00 UTC | run-0149 |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("got Markdown without %q", want)
		}
	}
	if got := strings.Count(out, "| 2025-"); got != mdTrendRuns {
		t.Errorf("got %d run rows, want %d", got, mdTrendRuns)
	}
	spark := regexp.MustCompile("\\| Score \\| `([^`]*)`").FindStringSubmatch(out)
	if spark == nil || len([]rune(spark[1])) != mdSparkRuns {
		t.Errorf("got score sparkline %q, want %d runes", spark, mdSparkRuns)
	}
	checkTables(t, out)
}

func TestTrendsModel(t *testing.T) {
	day := func(d, h int) time.Time { return trendDay0.Add(time.Duration(d*24+h) * time.Hour) }
	d := &TrendData{
		Runs: []store.RunSummary{{RunID: "r0", StartedAt: day(0, 0), Results: 1}, {RunID: "r1", StartedAt: day(1, 0), Results: 1},
			{RunID: "r2", StartedAt: day(2, 0), Results: 1}, {RunID: "r3", StartedAt: day(3, 0), Results: 1}},
		Scores: []store.ProbeScore{
			{RunID: "r3", ProbeID: "a", Mean: 0.5, N: 1},
			{RunID: "r3", ProbeID: "b", Mean: math.NaN(), N: 1},
			{RunID: "r2", ProbeID: "c", Mean: 0.9, N: 1},
			{RunID: "r3", ProbeID: "c", Mean: 0.5, N: 1},
			{RunID: "r3", ProbeID: "d", Mean: 1, N: 1},
			{RunID: "r0", ProbeID: "e", Mean: 0.2, N: 1},
			{RunID: "gone", ProbeID: "f", Mean: 0, N: 1},
		},
		Drifts: []store.DriftSummary{
			{ReportID: "late-compare-of-r1", CurrentRunID: "r1", GeneratedAt: day(9, 0), Severity: "low"},
			{ReportID: "worse-compare-of-r1", CurrentRunID: "r1", GeneratedAt: day(9, 1), Severity: "critical"},
			{ReportID: "unknown-run-after-r2", CurrentRunID: "pruned", GeneratedAt: day(2, 3), Severity: "medium"},
			{ReportID: "before-any-run", GeneratedAt: day(-1, 0), Severity: "high"},
			{ReportID: "no-severity", CurrentRunID: "r3", GeneratedAt: day(3, 1)},
		},
	}
	tests := []struct {
		name        string
		last        int
		wantProbes  []string
		wantLine    string
		wantEarlier int
		wantCounts  string
	}{
		{"all runs", 0, []string{"b", "e", "a", "c", "d"}, "─CM·", 1, "1 critical, 1 medium, 1 low, 1 none"},
		{"last two runs", 2, []string{"b", "a", "c", "d"}, "M·", 3, "1 medium, 1 none"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := newTrendModel(d.sorted(), tc.last)
			var ids []string
			for _, p := range m.Probes {
				ids = append(ids, p.ID)
			}
			if !slices.Equal(ids, tc.wantProbes) {
				t.Errorf("got probe order %v, want %v", ids, tc.wantProbes)
			}
			var line strings.Builder
			for _, mk := range m.columnMarks() {
				if mk == nil {
					line.WriteString(trendNoCompare)
				} else {
					line.WriteString(severityLetter(mk.Severity))
				}
			}
			if got := line.String(); got != tc.wantLine {
				t.Errorf("got timeline %q, want %q", got, tc.wantLine)
			}
			if m.Earlier != tc.wantEarlier {
				t.Errorf("got %d earlier compares, want %d", m.Earlier, tc.wantEarlier)
			}
			if got := m.severityCounts(); got != tc.wantCounts {
				t.Errorf("got counts %q, want %q", got, tc.wantCounts)
			}
		})
	}
}

func TestSparkline(t *testing.T) {
	got := sparkline([]float64{0, 0.124, 0.125, 0.5, 0.874, 0.875, 1, 1.5, -1, math.NaN(), math.Inf(1)})
	if want := "▁▁▂▅▇███▁??"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestHeatScale(t *testing.T) {
	tests := []struct {
		v         float64
		wantFill  string
		wantGlyph string
	}{
		{0, "#dc2626", "░"},
		{0.4, "#f08610", "▒"},
		{0.5, "#f59e0b", "▒"},
		{0.7, "#9ca024", "▓"},
		{0.9, "#43a23d", "█"},
		{1, "#16a34a", "█"},
		{1.5, "#16a34a", "█"},
		{-0.5, "#dc2626", "░"},
		{math.NaN(), "#94a3b8", "?"},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprint(tc.v), func(t *testing.T) {
			glyph, _ := heatCell(probeCell{Mean: tc.v, Has: true})
			if got := heatColor(tc.v); got != tc.wantFill || glyph != tc.wantGlyph {
				t.Errorf("got %s %q, want %s %q", got, glyph, tc.wantFill, tc.wantGlyph)
			}
		})
	}
}

// svgCounts parses every <svg> element of an HTML page as XML and counts
// its elements by name; it fails on XML that is not well-formed and on an
// empty <title>.
func svgCounts(t *testing.T, page string) []map[string]int {
	t.Helper()
	var out []map[string]int
	for _, svg := range regexp.MustCompile(`(?s)<svg\b.*?</svg>`).FindAllString(page, -1) {
		dec := xml.NewDecoder(strings.NewReader(svg))
		dec.Strict = true
		counts := make(map[string]int)
		inTitle, titleText := false, ""
		for {
			tok, err := dec.Token()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("SVG %d is not well-formed XML: %v\n%s", len(out), err, svg)
			}
			switch tok := tok.(type) {
			case xml.StartElement:
				counts[tok.Name.Local]++
				if tok.Name.Local == "title" {
					inTitle, titleText = true, ""
				}
			case xml.CharData:
				if inTitle {
					titleText += string(tok)
				}
			case xml.EndElement:
				if tok.Name.Local == "title" {
					if strings.TrimSpace(titleText) == "" {
						t.Errorf("SVG %d has an empty <title>", len(out))
					}
					inTitle = false
				}
			}
		}
		out = append(out, counts)
	}
	if got, want := len(out), strings.Count(page, "<svg"); got != want {
		t.Errorf("parsed %d SVG elements, want %d", got, want)
	}
	return out
}

func TestTrendsSVG(t *testing.T) {
	history := loadTrends(t, "trends_history.json")
	big := syntheticTrends(200, "alpha", "beta", "gamma")
	tests := []struct {
		name string
		d    *TrendData
		// Per SVG (line chart, heatmap, scale, timeline): element counts.
		want []map[string]int
	}{
		{"history", history, []map[string]int{
			{"svg": 1, "circle": 23, "polyline": 3, "title": 23},
			{"svg": 1, "rect": 57, "title": 57 + 5, "g": 5},
			{"svg": 1, "rect": 12},
			{"svg": 1, "circle": 3, "g": 3, "title": 3},
		}},
		{"single run", loadTrends(t, "trends_single.json"), []map[string]int{
			{"svg": 1, "circle": 2, "polyline": 0, "title": 2},
			{"svg": 1, "rect": 4, "title": 4 + 4, "g": 4},
			{"svg": 1, "rect": 12},
		}},
		{"empty", loadTrends(t, "trends_empty.json"), nil},
		{"200 runs", big, []map[string]int{
			{"svg": 1, "circle": 400, "polyline": 2, "title": 400},
			{"svg": 1, "rect": 600, "title": 603, "g": 3},
			{"svg": 1, "rect": 12},
			{"svg": 1, "circle": 20, "g": 20, "title": 20},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			counts := svgCounts(t, renderTrends(t, HTML, tc.d, Options{}))
			if len(counts) != len(tc.want) {
				t.Fatalf("got %d SVG elements, want %d", len(counts), len(tc.want))
			}
			for i, want := range tc.want {
				for name, n := range want {
					if got := counts[i][name]; got != n {
						t.Errorf("SVG %d: got %d <%s>, want %d", i, got, name, n)
					}
				}
			}
		})
	}
	t.Run("200 runs fit the plot", func(t *testing.T) {
		out := renderTrends(t, HTML, big, Options{})
		if want := fmt.Sprintf(`width="%d"`, svgLeft+svgPlot+svgRight); !strings.Contains(out, want) {
			t.Errorf("got no chart %s for 200 runs, want the plot capped at %d", want, svgPlot)
		}
		if got := strings.Count(out, "text-anchor=\"middle\">2025-"); got > 3*(svgPlot/svgTickGap+1) {
			t.Errorf("got %d date labels, want at most %d per chart", got, svgPlot/svgTickGap+1)
		}
	})
}

// TestTrendsHTMLSelfContained checks that the page needs nothing but
// itself: no script, no stylesheet or image from elsewhere.
func TestTrendsHTMLSelfContained(t *testing.T) {
	for _, fixture := range []string{"trends_history.json", "trends_single.json", "trends_empty.json"} {
		t.Run(fixture, func(t *testing.T) {
			out := renderTrends(t, HTML, loadTrends(t, fixture), Options{})
			for _, bad := range []string{"<script", "javascript:", "href=", "src=", "<link", "@import", "url(", "<img", "<iframe"} {
				if strings.Contains(out, bad) {
					t.Errorf("got %q in the page, want a self-contained page without scripts", bad)
				}
			}
			if h := regexp.MustCompile(`\son[a-z]+=`).FindString(out); h != "" {
				t.Errorf("got event handler %q in the page, want none", h)
			}
			if strings.Count(out, "<html") != 1 || !strings.HasSuffix(out, "</html>\n") {
				t.Errorf("got %d <html> and ending %q, want one complete document", strings.Count(out, "<html"), out[max(0, len(out)-10):])
			}
		})
	}
}

// hostileTrends has untrusted strings everywhere a store can hold them.
func hostileTrends() *TrendData {
	at := trendDay0
	ids := []string{"<script>alert(1)</script>", `"quoted" id`, "a & b", "x|y`z` \x1b[31mred\u202e *b* [l](http://x)"}
	d := &TrendData{Suite: "<b>suite</b> & co", Model: "m<img src=x onerror=alert(1)>"}
	for i, runID := range []string{`run"<script>alert(2)</script>`, "run&amp;2"} {
		at := at.Add(time.Duration(i) * time.Hour)
		d.Runs = append(d.Runs, store.RunSummary{RunID: runID, StartedAt: at, Score: 0.5, PassRate: 0.5, Verdict: "<i>high</i>", IsBaseline: i == 0})
		for j, p := range ids {
			d.Scores = append(d.Scores, store.ProbeScore{RunID: runID, StartedAt: at, ProbeID: p, Mean: float64(j) / 4, N: 1})
		}
	}
	d.Drifts = []store.DriftSummary{{ReportID: "<script>r</script>", CurrentRunID: d.Runs[1].RunID, GeneratedAt: at.Add(2 * time.Hour),
		Severity: "<script>", Summary: hostile[:200]}}
	return d
}

func TestTrendsHostile(t *testing.T) {
	d := hostileTrends()
	t.Run("html", func(t *testing.T) {
		out := renderTrends(t, HTML, d, Options{})
		for _, bad := range []string{"<script", "<img", "<b>", "<i>", "a & b", `"quoted"`, "\x1b", "\u202e", "href=\"http", "src=\"http"} {
			if strings.Contains(out, bad) {
				t.Errorf("got raw %q in HTML, want it escaped", bad)
			}
		}
		for _, want := range []string{"&lt;script&gt;alert(1)&lt;/script&gt;", "&#34;quoted&#34; id", "a &amp; b", "run&amp;amp;2"} {
			if !strings.Contains(out, want) {
				t.Errorf("got no %q in HTML, want the id shown as text", want)
			}
		}
		svgCounts(t, out)
	})
	t.Run("markdown", func(t *testing.T) {
		out := renderTrends(t, Markdown, d, Options{})
		for _, bad := range []string{"<script", "<img", "<b>", "<i>", "a & b", "\x1b", "\u202e", "[l](", "*b*"} {
			if strings.Contains(out, bad) {
				t.Errorf("got raw %q in Markdown, want it escaped", bad)
			}
		}
		for _, want := range []string{"&lt;script&gt;alert(1)&lt;/script&gt;", "a &amp; b", "run&amp;amp;2"} {
			if !strings.Contains(out, want) {
				t.Errorf("got no %q in Markdown", want)
			}
		}
		checkTables(t, out)
	})
	t.Run("terminal", func(t *testing.T) {
		for _, color := range []bool{false, true} {
			out := stripANSI(renderTrends(t, Terminal, d, Options{Color: color, Width: 100}))
			for i, r := range out {
				if (r < 0x20 && r != '\n') || r == 0x7f || r == '\u202e' {
					t.Fatalf("color=%v: got control character %U at byte %d", color, r, i)
				}
			}
			if !strings.Contains(out, `\x1b[31mred\u202e`) {
				t.Errorf("color=%v: got no escaped control sequence, want it shown as text:\n%s", color, out)
			}
			for n, l := range strings.Split(out, "\n") {
				if w := termtext.Width(l); w > 100 {
					t.Errorf("color=%v: line %d is %d columns, want at most 100", color, n+1, w)
				}
			}
		}
	})
	t.Run("json", func(t *testing.T) {
		out := renderTrends(t, JSON, d, Options{})
		for _, bad := range []string{"<script", "<img", "&", "\x1b"} {
			if strings.Contains(out, bad) {
				t.Errorf("got raw %q in JSON, want it escaped", bad)
			}
		}
		var back TrendData
		if err := json.Unmarshal([]byte(out), &back); err != nil {
			t.Fatalf("decode: %v", err)
		}
		if diff := cmp.Diff(d.sorted(), &back, cmpopts.EquateNaNs()); diff != "" {
			t.Errorf("hostile data changed in the round trip (-want +got):\n%s", diff)
		}
	})
}

func TestTrendsJSON(t *testing.T) {
	for _, fixture := range []string{"trends_history.json", "trends_single.json", "trends_empty.json"} {
		t.Run(fixture, func(t *testing.T) {
			d := loadTrends(t, fixture)
			out := renderTrends(t, JSON, d, Options{})
			var back TrendData
			if err := json.Unmarshal([]byte(out), &back); err != nil {
				t.Fatalf("decode: %v", err)
			}
			if diff := cmp.Diff(d.sorted(), &back, cmpopts.EquateNaNs(), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("changed in the round trip (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("not a number is null", func(t *testing.T) {
		out := renderTrends(t, JSON, &TrendData{Runs: []store.RunSummary{{RunID: "r", Score: math.NaN(), PassRate: math.Inf(1)}}}, Options{})
		for _, want := range []string{`"score": null`, `"pass_rate": null`, `"scores": []`, `"drifts": []`} {
			if !strings.Contains(out, want) {
				t.Errorf("got no %s in:\n%s", want, out)
			}
		}
	})
	t.Run("bad input", func(t *testing.T) {
		var d TrendData
		err := json.Unmarshal([]byte(`{"runs": [{"score": "high"}]}`), &d)
		if err == nil || !strings.HasPrefix(err.Error(), "decode trend data: ") {
			t.Errorf("got error %v, want a decode trend data error", err)
		}
	})
}

// TestTrendsInputOrder checks that a history listed newest first, as stores
// list it, renders like a chronological one and is left as it was.
func TestTrendsInputOrder(t *testing.T) {
	chrono := loadTrends(t, "trends_history.json")
	reversed := loadTrends(t, "trends_history.json")
	slices.Reverse(reversed.Runs)
	slices.Reverse(reversed.Scores)
	slices.Reverse(reversed.Drifts)
	before := *reversed
	before.Runs, before.Scores, before.Drifts = slices.Clone(reversed.Runs), slices.Clone(reversed.Scores), slices.Clone(reversed.Drifts)
	for _, f := range Formats {
		if f == JUnit {
			continue // trends have no JUnit form
		}
		t.Run(string(f), func(t *testing.T) {
			want := renderTrends(t, f, chrono, Options{})
			if got := renderTrends(t, f, reversed, Options{}); got != want {
				t.Errorf("got different output for newest-first input, want the same:\n%s", cmp.Diff(want, got))
			}
			if diff := cmp.Diff(&before, reversed, cmpopts.EquateNaNs()); diff != "" {
				t.Errorf("Trends modified its input (-before +after):\n%s", diff)
			}
		})
	}
}

func TestTrendsColor(t *testing.T) {
	d := loadTrends(t, "trends_history.json")
	tests := []struct {
		f     Format
		color bool
		want  bool
	}{
		{Terminal, false, false},
		{Terminal, true, true},
		{Markdown, true, false},
		{HTML, true, false},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprint(tc.f, tc.color), func(t *testing.T) {
			if got := strings.Contains(renderTrends(t, tc.f, d, Options{Color: tc.color}), "\x1b"); got != tc.want {
				t.Errorf("got ANSI sequences %v, want %v", got, tc.want)
			}
		})
	}
}

func TestTrendsErrors(t *testing.T) {
	d := loadTrends(t, "trends_history.json")
	checkRenderErrors(t, []renderErrorCase{
		{"nil data", func() error { return Trends(&bytes.Buffer{}, JSON, nil, Options{}) }, "render trends: nil trend data"},
		{"unknown format", func() error { return Trends(&bytes.Buffer{}, "pdf", d, Options{}) }, `render trends: unknown format "pdf"`},
		{"write fails", func() error { return Trends(failWriter{}, HTML, d, Options{}) }, "write trends report: disk full"},
	})
}

func BenchmarkTrends(b *testing.B) {
	probes := make([]string, 20)
	for i := range probes {
		probes[i] = fmt.Sprintf("probe_%02d", i)
	}
	d := syntheticTrends(200, probes...)
	for _, f := range Formats {
		b.Run(string(f), func(b *testing.B) {
			for b.Loop() {
				if err := Trends(io.Discard, f, d, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
