package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/promptcanary/promptcanary/drift"
	"github.com/promptcanary/promptcanary/internal/cli"
	"github.com/promptcanary/promptcanary/store"
	"github.com/promptcanary/promptcanary/store/file"
)

// BenchmarkCompare measures what a compare of issue 10's statistical run
// does in memory: decode the run file and the baseline file, and compare
// them (statistics and change signals), as compare --current does between
// reading its files and recording its report. The runs are made once, by
// the promptcanary command line in this process.
//
//	go test ./bench/scale -run '^$' -bench Compare -benchtime 10x
func BenchmarkCompare(b *testing.B) {
	dir := b.TempDir()
	c := &config{prompts: 200, probes: 10, samples: 30, baseline: "sim/noisy", current: "sim/subtle"}
	suitePath, err := writeSuite(c, dir)
	if err != nil {
		b.Fatal(err)
	}
	current := filepath.Join(dir, "current.json")
	for _, args := range [][]string{
		{"run", "-c", suitePath, "--save-baseline", "--no-progress"},
		{"run", "-c", suitePath, "-p", c.current, "--no-progress", "-o", current},
	} {
		var out bytes.Buffer
		if code := cli.Main(context.Background(), args, cli.Stdio{In: bytes.NewReader(nil), Out: &out, Err: &out}); code != 0 {
			b.Fatalf("%v: exit %d\n%s", args, code, out.Bytes())
		}
	}
	baselines, err := filepath.Glob(filepath.Join(dir, "baselines", "*.json"))
	if err != nil || len(baselines) != 1 {
		b.Fatalf("want the one baseline file, got %q (%v)", baselines, err)
	}
	runData, err := os.ReadFile(current)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		base, err := file.LoadBaseline(baselines[0])
		if err != nil {
			b.Fatal(err)
		}
		doc, err := store.DecodeDocument(runData)
		if err != nil {
			b.Fatal(err)
		}
		rep, err := drift.Compare(base, doc.Run, drift.Options{Seed: 1})
		if err != nil {
			b.Fatal(err)
		}
		if rep.Compared() != c.prompts*c.probes {
			b.Fatalf("compared %d pairs, want %d", rep.Compared(), c.prompts*c.probes)
		}
	}
}
