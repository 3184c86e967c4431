package report

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/termtext"
	"github.com/promptcanary/promptcanary/store"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// load decodes a fixture from testdata.
func load(t testing.TB, name string) (*promptcanary.Run, *promptcanary.DriftReport) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return decode(t, name, data)
}

// decode reads a run (a baseline yields its run) or a drift report.
func decode(t testing.TB, name string, data []byte) (*promptcanary.Run, *promptcanary.DriftReport) {
	t.Helper()
	doc, err := store.DecodeDocument(data)
	if err != nil {
		t.Fatalf("decode %s: %v", name, err)
	}
	return doc.Run, doc.Drift
}

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden file (run go test ./report -update to create it): %v", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("output differs from %s (-want +got):\n%s", path, diff)
	}
}

func TestGolden(t *testing.T) {
	variants := goldenVariants
	for _, fixture := range []string{"run_failures", "drift_mixed", "drift_clean", "drift_stats_flagged", "drift_stats_clean"} {
		for _, v := range variants {
			t.Run(fixture+"/"+v.suffix, func(t *testing.T) {
				run, drift := load(t, fixture+".json")
				var buf bytes.Buffer
				var err error
				if run != nil {
					err = Run(&buf, v.format, run, v.opts)
				} else {
					err = Drift(&buf, v.format, drift, v.opts)
				}
				if err != nil {
					t.Fatalf("render: %v", err)
				}
				golden(t, fixture+"."+v.suffix+".golden", buf.Bytes())
			})
		}
	}
}

func TestJSONRoundTrip(t *testing.T) {
	for _, fixture := range []string{"run_failures.json", "drift_mixed.json", "drift_clean.json", "drift_stats_flagged.json", "drift_stats_clean.json"} {
		t.Run(fixture, func(t *testing.T) {
			run, drift := load(t, fixture)
			var buf bytes.Buffer
			var err error
			if run != nil {
				err = Run(&buf, JSON, run, Options{})
			} else {
				err = Drift(&buf, JSON, drift, Options{})
			}
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.HasSuffix(buf.Bytes(), []byte("}\n")) {
				t.Errorf("got output ending %q, want a trailing newline after the object", buf.Bytes()[max(0, buf.Len()-5):])
			}
			gotRun, gotDrift := decode(t, "output", buf.Bytes())
			if diff := cmp.Diff(run, gotRun); diff != "" {
				t.Errorf("run changed in the round trip (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(drift, gotDrift); diff != "" {
				t.Errorf("drift report changed in the round trip (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseFormat(t *testing.T) {
	tests := []struct {
		in      string
		want    Format
		wantErr string
	}{
		{"terminal", Terminal, ""},
		{"markdown", Markdown, ""},
		{"md", Markdown, ""},
		{"HTML", HTML, ""},
		{" json ", JSON, ""},
		{"markdwn", "", `unknown report format "markdwn" (did you mean markdown?): want terminal, markdown, html, json or junit`},
		{"jsn", "", `unknown report format "jsn" (did you mean json?): want terminal, markdown, html, json or junit`},
		{"term", "", `unknown report format "term" (did you mean terminal?): want terminal, markdown, html, json or junit`},
		{"pdf", "", `unknown report format "pdf": want terminal, markdown, html, json or junit`},
		{"", "", `unknown report format "": want terminal, markdown, html, json or junit`},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseFormat(tc.in)
			gotErr := ""
			if err != nil {
				gotErr = err.Error()
			}
			if got != tc.want || gotErr != tc.wantErr {
				t.Errorf("got %q, %q, want %q, %q", got, gotErr, tc.want, tc.wantErr)
			}
		})
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// renderErrorCase is a rendering that must fail with the error want.
type renderErrorCase struct {
	name   string
	render func() error
	want   string
}

// checkRenderErrors runs each case in its own subtest.
func checkRenderErrors(t *testing.T, tests []renderErrorCase) {
	t.Helper()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.render(); err == nil || err.Error() != tc.want {
				t.Errorf("got error %v, want %q", err, tc.want)
			}
		})
	}
}

func TestRenderErrors(t *testing.T) {
	run, _ := load(t, "run_failures.json")
	_, drift := load(t, "drift_clean.json")
	checkRenderErrors(t, []renderErrorCase{
		{"nil run", func() error { return Run(&bytes.Buffer{}, JSON, nil, Options{}) }, "render run: nil run"},
		{"nil drift", func() error { return Drift(&bytes.Buffer{}, JSON, nil, Options{}) }, "render drift report: nil report"},
		{"unknown run format", func() error { return Run(&bytes.Buffer{}, "pdf", run, Options{}) }, `render run: unknown format "pdf"`},
		{"unknown drift format", func() error { return Drift(&bytes.Buffer{}, "", drift, Options{}) }, `render drift report: unknown format ""`},
		{"run write fails", func() error { return Run(failWriter{}, Markdown, run, Options{}) }, "write run report: disk full"},
		{"drift write fails", func() error { return Drift(failWriter{}, HTML, drift, Options{}) }, "write drift report: disk full"},
	})
}

// TestTerminalFitsWidth checks that no terminal line is wider than asked.
func TestTerminalFitsWidth(t *testing.T) {
	for _, fixture := range []string{"run_failures.json", "drift_mixed.json", "drift_clean.json", "drift_stats_flagged.json", "drift_stats_clean.json"} {
		for _, width := range []int{0, 80, 120} {
			t.Run(fixture+"/"+string(rune('0'+width/40)), func(t *testing.T) {
				run, drift := load(t, fixture)
				var buf bytes.Buffer
				opts := Options{Width: width, Verbose: true}
				if run != nil {
					_ = Run(&buf, Terminal, run, opts)
				} else {
					_ = Drift(&buf, Terminal, drift, opts)
				}
				limit := opts.width()
				for i, l := range strings.Split(buf.String(), "\n") {
					if w := termtext.Width(l); w > limit {
						t.Errorf("line %d is %d columns, want at most %d: %q", i+1, w, limit, l)
					}
				}
			})
		}
	}
}

// checkOutput fails t for every string of want that out lacks and every
// string of notWant that it holds.
func checkOutput(t *testing.T, out string, want, notWant []string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("got output without %q, want it:\n%s", w, out)
		}
	}
	for _, n := range notWant {
		if strings.Contains(out, n) {
			t.Errorf("got output with %q, want it absent:\n%s", n, out)
		}
	}
}

// goldenVariant is one rendering of a golden fixture: its file suffix, its
// format and its options.
type goldenVariant struct {
	suffix string
	format Format
	opts   Options
}

// goldenVariants are the renderings every report kind has a golden file of.
var goldenVariants = []goldenVariant{
	{"terminal", Terminal, Options{}},
	{"terminal-verbose", Terminal, Options{Verbose: true, Width: 120}},
	{"terminal-color", Terminal, Options{Color: true}},
	{"markdown", Markdown, Options{}},
	{"html", HTML, Options{}},
	{"json", JSON, Options{}},
}
