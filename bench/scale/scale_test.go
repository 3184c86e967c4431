package main

import (
	"slices"
	"testing"
	"time"

	_ "github.com/promptcanary/promptcanary/probe/builtin"
	"github.com/promptcanary/promptcanary/suite"
)

func TestSuiteIsTheIssuesShape(t *testing.T) {
	c := &config{prompts: 200, probes: 10, samples: 30, baseline: "sim/noisy", temperature: 0}
	path, err := writeSuite(c, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	st, err := suite.Load(path)
	if err != nil {
		t.Fatalf("the generated suite does not load: %v", err)
	}
	if len(st.Prompts) != 200 {
		t.Fatalf("got %d prompts, want 200", len(st.Prompts))
	}
	for _, p := range st.Prompts {
		if n := len(st.ProbesFor(p.ID)); n != 10 {
			t.Fatalf("prompt %s: got %d probes, want 10", p.ID, n)
		}
	}
}

func TestParseTimeV(t *testing.T) {
	report := `	Command being timed: "promptcanary compare"
	User time (seconds): 0.41
	System time (seconds): 0.17
	Percent of CPU this job got: 120%
	Maximum resident set size (kbytes): 99908
	Exit status: 0
`
	u, err := parseTimeV(report)
	if err != nil {
		t.Fatal(err)
	}
	if u.peakRSS != 99908*1024 || u.user != 410*time.Millisecond || u.sys != 170*time.Millisecond {
		t.Errorf("got %+v, want 99908 KiB, 0.41 s user, 0.17 s system", u)
	}
	if _, err := parseTimeV("Exit status: 0\n"); err == nil {
		t.Error("a report without the figures: got no error")
	}
	back, err := parseUsage(u.String())
	if err != nil || back != u {
		t.Errorf("usage round trip: got %+v, %v; want %+v", back, err, u)
	}
}

func TestParseSizes(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []int
	}{
		{"200,400,800,2000", []int{200, 400, 800, 2000}},
		{" 200, 400 ", []int{200, 400}},
		{"200", []int{200}},
		{"400,200", nil},
		{"200,200", nil},
		{"0,200", nil},
		{"200,x", nil},
		{"", nil},
	} {
		got, err := parseSizes(c.in)
		if (err != nil) != (c.want == nil) || !slices.Equal(got, c.want) {
			t.Errorf("parseSizes(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
}
