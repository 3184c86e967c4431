package benchmark_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/cputime"
	"github.com/promptcanary/promptcanary/probe"
	"github.com/promptcanary/promptcanary/probe/internal/probetest"
)

// responses wraps the corpus texts as responses, with the usage a
// provider reports (which only the probes added after the original 19
// read).
func responses(tb testing.TB) []promptcanary.Response {
	tb.Helper()
	var out []promptcanary.Response
	for _, s := range corpus(tb) {
		r := promptcanary.Response{PromptID: prompt.ID, Content: s.content}
		usage(&r)
		out = append(out, r)
	}
	return out
}

// reportRate reports evaluations a second of wall time and of CPU time
// (cpu being the CPU time when the loop started), evals being the
// evaluations of one benchmark iteration. With GOMAXPROCS=1 the CPU figure
// is the one-core rate even when other processes share the machine.
func reportRate(b *testing.B, evals int, cpu time.Duration) {
	if s := b.Elapsed().Seconds(); s > 0 {
		b.ReportMetric(float64(b.N*evals)/s, "evals/s")
	}
	if c := (cputime.Process() - cpu).Seconds(); c > 0 && cpu > 0 {
		b.ReportMetric(float64(b.N*evals)/c, "cpu-evals/s")
	}
}

// BenchmarkProbe evaluates each built-in probe alone, one corpus response
// per iteration in turn: a probe that is the only one in its suite, so
// nothing it could share with other probes is already computed.
func BenchmarkProbe(b *testing.B) {
	resps := responses(b)
	configs := append(slices.Clone(benchConfigs), newConfigs...)
	for i, p := range build(b, configs) {
		b.Run(configs[i].name, func(b *testing.B) {
			b.ReportAllocs()
			cpu := cputime.Process()
			j := 0
			for b.Loop() {
				probetest.Eval(p, prompt, &resps[j])
				if j++; j == len(resps) {
					j = 0
				}
			}
			reportRate(b, 1, cpu)
		})
	}
}

// BenchmarkMix evaluates every built-in probe on each corpus response in
// turn, as runner.Evaluate does for a suite that uses them all. One
// iteration is one response judged by the 19 probes; evals/s counts probe
// evaluations and allocs/op covers all 19.
func BenchmarkMix(b *testing.B) { benchMix(b, benchConfigs) }

// BenchmarkMixAll is BenchmarkMix with the probes added after the original
// 19 as well (newConfigs): 34 probes on each response.
func BenchmarkMixAll(b *testing.B) { benchMix(b, append(slices.Clone(benchConfigs), newConfigs...)) }

// BenchmarkMixText is BenchmarkMix restricted to the text probes of the
// reasoning and safety families, the word-list and regex-heavy ones.
func BenchmarkMixText(b *testing.B) {
	var configs []config
	for _, c := range benchConfigs {
		switch c.id {
		case "step_by_step", "verbosity", "confidence_language", "direct_answer", "sentiment", "refusal", "safety_language":
			configs = append(configs, c)
		}
	}
	benchMix(b, configs)
}

// benchMix evaluates the probes of configs on each corpus response in
// turn, through probe.Instance.Evaluate as a run does.
func benchMix(b *testing.B, configs []config) {
	resps := responses(b)
	probes := build(b, configs)
	insts := make([]probe.Instance, len(probes))
	for i, p := range probes {
		insts[i] = probe.Instance{ID: configs[i].name, Type: configs[i].id, Probe: p}
	}
	ctx := context.Background()
	b.ReportAllocs()
	cpu := cputime.Process()
	j := 0
	for b.Loop() {
		for k := range insts {
			insts[k].Evaluate(ctx, probe.Input{Prompt: prompt, Response: &resps[j]})
		}
		if j++; j == len(resps) {
			j = 0
		}
	}
	reportRate(b, len(probes), cpu)
}
