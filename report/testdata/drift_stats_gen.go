//go:build ignore

// drift_stats_gen writes the statistical drift fixtures of the report tests,
// drift_stats_flagged.json and drift_stats_clean.json, by running
// drift.Compare on hand-made multi-sample runs. The report package sits below
// drift, so its tests read the fixtures instead of calling Compare. Run it
// from the module root after a change of the drift evidence:
//
//	go run ./report/testdata/drift_stats_gen.go
package main

import (
	"encoding/json"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/drift"
)

// probeDef is a probe of the hand-made suite.
type probeDef struct {
	id, name   string
	category   promptcanary.Category
	continuous bool
}

var (
	prompts = []string{"math_word_problem", "order_json", "refund_policy", "summarise_doc"}
	probes  = []probeDef{
		{"json_schema", "JSON schema", promptcanary.CategoryFormat, false},
		{"json_validity", "JSON validity", promptcanary.CategoryFormat, false},
		{"keyword_presence", "Keyword presence", promptcanary.CategoryFactual, false},
		{"tone", "Tone", promptcanary.CategoryCustom, true},
	}
	t0 = time.Date(2025, 5, 2, 8, 0, 0, 0, time.UTC)
)

// side describes one run: passes per (probe, prompt) out of n samples, the
// mean tone score per prompt, how many distinct texts each prompt gives and
// their length, and the system fingerprint.
type side struct {
	n           int
	passes      map[string]int // "probe/prompt" → passes; absent means all pass
	tone        map[string]float64
	variants    map[string]int
	longer      map[string]bool
	fingerprint string
}

func makeRun(id string, s side, seed uint64) promptcanary.Run {
	rng := rand.New(rand.NewPCG(seed, 7))
	run := promptcanary.Run{
		SchemaVersion: promptcanary.SchemaVersion, RunID: id, SuiteName: "support-bot", Samples: s.n,
		Provider:  promptcanary.ProviderConfig{ModelID: "openai/gpt-4o-mini", Temperature: 0.7, MaxTokens: 512},
		StartedAt: t0, FinishedAt: t0.Add(90 * time.Second),
	}
	for _, prompt := range prompts {
		for smp := range s.n {
			v := rng.IntN(max(s.variants[prompt], 1))
			text := fmt.Sprintf("Answer %d to %s: here is what you asked for.", v, prompt)
			if s.longer[prompt] {
				text += strings.Repeat(" I hope this helps, and let me know if you need anything else.", 6)
			}
			run.LLMResponses = append(run.LLMResponses, promptcanary.Response{
				PromptID: prompt, ProviderModelID: "openai/gpt-4o-mini", Content: text, FinishReason: "stop",
				Sample: smp, SystemFingerprint: s.fingerprint, CompletionTokens: len(strings.Fields(text)) + 3,
			})
		}
	}
	for _, p := range probes {
		for _, prompt := range prompts {
			key := p.id + "/" + prompt
			passes, ok := s.passes[key]
			if !ok {
				passes = s.n
			}
			fail := map[int]bool{}
			for _, k := range rng.Perm(s.n)[:s.n-passes] {
				fail[k] = true
			}
			for smp := range s.n {
				r := promptcanary.ProbeResult{ProbeID: p.id, ProbeType: p.id, ProbeName: p.name, Category: p.category,
					PromptID: prompt, Sample: smp, Passed: !fail[smp], Score: 1, Details: "ok"}
				if p.continuous {
					m, ok := s.tone[prompt]
					if !ok {
						m = 0.86
					}
					r.Score = min(1, max(0, m+0.08*(rng.Float64()-0.5)))
					r.Passed = r.Score >= 0.7
					r.Details = fmt.Sprintf("tone score %.2f", r.Score)
				} else if fail[smp] {
					r.Score, r.Details = 0, failDetail(p.id)
				}
				run.ProbeResults = append(run.ProbeResults, r)
			}
		}
	}
	return run
}

func failDetail(probe string) string {
	switch probe {
	case "json_validity":
		return "Not valid JSON: unexpected end of input"
	case "json_schema":
		return "missing required property \"order_id\""
	}
	return "2/3 keywords present; missing: \"receipt\""
}

func main() {
	baseSide := side{n: 30,
		passes:      map[string]int{"json_validity/order_json": 29, "json_schema/order_json": 28, "keyword_presence/refund_policy": 27},
		variants:    map[string]int{"math_word_problem": 3, "order_json": 12, "refund_policy": 6, "summarise_doc": 25},
		fingerprint: "fp_44709d6fcb",
	}
	base := promptcanary.Baseline{
		SnapshotID: "snap-2025-04-01", CreatedAt: time.Date(2025, 4, 1, 12, 0, 0, 0, time.UTC), SuiteName: "support-bot",
		Provider: promptcanary.ProviderConfig{ModelID: "openai/gpt-4o-mini", Temperature: 0.7, MaxTokens: 512}, SchemaVersion: promptcanary.SchemaVersion,
		RunResult: makeRun("run-2025-04-01-base", baseSide, 1),
	}

	flagged := side{n: 10,
		passes: map[string]int{
			"json_validity/order_json": 3, "json_validity/refund_policy": 7, "json_validity/summarise_doc": 7, "json_validity/math_word_problem": 8,
			"json_schema/order_json": 6, "keyword_presence/refund_policy": 9,
		},
		tone:        map[string]float64{"summarise_doc": 0.74},
		variants:    map[string]int{"math_word_problem": 2, "order_json": 10, "refund_policy": 4, "summarise_doc": 10},
		longer:      map[string]bool{"summarise_doc": true},
		fingerprint: "fp_b28b39ffa8",
	}
	clean := side{n: 10,
		passes:      map[string]int{"json_validity/order_json": 10, "json_schema/order_json": 9, "keyword_presence/refund_policy": 9},
		variants:    baseSide.variants,
		fingerprint: "fp_44709d6fcb",
	}
	for _, out := range []struct {
		file, id string
		s        side
	}{{"drift_stats_flagged.json", "drift-stats-9c1e", flagged}, {"drift_stats_clean.json", "drift-stats-4b7d", clean}} {
		cur := makeRun("run-2025-05-02-"+out.id[len(out.id)-4:], out.s, 2)
		rep, err := drift.Compare(&base, &cur, drift.Options{Method: drift.MethodStatistical, Seed: 20250502,
			Now: func() time.Time { return t0 }, NewID: func() string { return out.id }})
		if err != nil {
			log.Fatal(err)
		}
		data, err := json.MarshalIndent(rep, "", "  ")
		if err != nil {
			log.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join("report", "testdata", out.file), append(data, '\n'), 0o644); err != nil {
			log.Fatal(err)
		}
	}
}
