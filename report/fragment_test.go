package report

import (
	"bytes"
	"strings"
	"testing"
)

func TestFragments(t *testing.T) {
	for _, fixture := range []string{"run_failures", "drift_mixed", "drift_clean", "drift_stats_flagged", "drift_stats_clean"} {
		t.Run(fixture, func(t *testing.T) {
			run, drift := load(t, fixture+".json")
			var page, frag bytes.Buffer
			if run != nil {
				if err := Run(&page, HTML, run, Options{}); err != nil {
					t.Fatal(err)
				}
				if err := RunFragment(&frag, run); err != nil {
					t.Fatal(err)
				}
			} else {
				if err := Drift(&page, HTML, drift, Options{}); err != nil {
					t.Fatal(err)
				}
				if err := DriftFragment(&frag, drift); err != nil {
					t.Fatal(err)
				}
			}
			body := strings.TrimSpace(frag.String())
			if !strings.Contains(page.String(), body) {
				t.Errorf("the fragment is not a part of the page:\n%s", body)
			}
			for _, tag := range []string{"<html", "<head", "<style", "<body", "<main", "</main>", "<header", "<h1"} {
				if strings.Contains(body, tag) {
					t.Errorf("the fragment contains %s", tag)
				}
			}
			if !strings.HasPrefix(body, `<p class="summary`) {
				t.Errorf("the fragment starts with %.60q, want the verdict", body)
			}
		})
	}
}

func TestFragmentRegressionAnswers(t *testing.T) {
	_, drift := load(t, "drift_stats_flagged.json")
	var frag bytes.Buffer
	if err := DriftFragment(&frag, drift); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`class="regression"`, "Baseline answer", "Current answer", `class="sides"`} {
		if !strings.Contains(frag.String(), want) {
			t.Errorf("the fragment lacks %q", want)
		}
	}
}

func TestFragmentEscapes(t *testing.T) {
	var frag bytes.Buffer
	if err := DriftFragment(&frag, hostileDrift()); err != nil {
		t.Fatal(err)
	}
	if err := RunFragment(&frag, hostileRun()); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"<script>", "<img", "\x1b", "\u202e"} {
		if strings.Contains(frag.String(), bad) {
			t.Errorf("a fragment contains %q", bad)
		}
	}
	if !strings.Contains(frag.String(), "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Error("the hostile answer is not shown escaped")
	}
}

func TestFragmentNil(t *testing.T) {
	var buf bytes.Buffer
	if err := DriftFragment(&buf, nil); err == nil || buf.Len() != 0 {
		t.Errorf("DriftFragment(nil) = %v and %d bytes, want an error and nothing", err, buf.Len())
	}
	if err := RunFragment(&buf, nil); err == nil || buf.Len() != 0 {
		t.Errorf("RunFragment(nil) = %v and %d bytes, want an error and nothing", err, buf.Len())
	}
}

func TestStylesheet(t *testing.T) {
	css := string(Stylesheet())
	for _, want := range []string{":root", ".regression", ".sides", "del {", "ins {"} {
		if !strings.Contains(css, want) {
			t.Errorf("the stylesheet lacks %q", want)
		}
	}
	if strings.Contains(css, "<style") || strings.Contains(css, "</style>") {
		t.Error("the stylesheet contains the style element")
	}
}
