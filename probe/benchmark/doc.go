// Package benchmark measures the built-in probes on a corpus of realistic
// model responses and pins their verdicts.
//
// It holds no code of its own: its tests load testdata/corpus (answers of
// 50 B to 4 KB written for this purpose: JSON objects, fenced JSON, prose,
// step-by-step answers, tool calls, refusals, hedging, disclaimers,
// preambles), benchmark every built-in probe on it, one probe at a time and
// all together as the runner evaluates a response, and compare every
// result on the corpus, its mutations and generated texts with
// testdata/golden.txt, recorded from the original implementations.
//
//	GOMAXPROCS=1 go test ./probe/benchmark -run '^$' -bench . -benchmem -cpu 1
package benchmark
