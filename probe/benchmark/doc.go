// Package benchmark measures the built-in probes on a corpus of realistic
// model responses and pins their verdicts.
//
// It holds no code of its own: its tests load testdata/corpus (answers of
// 50 B to 4 KB written for this purpose: JSON objects, fenced JSON, prose,
// step-by-step answers, tool calls, refusals, hedging, disclaimers,
// preambles), benchmark every built-in probe that judges an answer on its
// own (all but similarity, exec and llm_judge) on it, one probe at a time
// (BenchmarkProbe) and all together as the runner evaluates a response
// (BenchmarkMix: the original 19; BenchmarkMixAll: the 34 configurations of
// BenchmarkProbe), and compare every result on the corpus, its mutations
// and generated texts with testdata/golden.txt (the original 19, recorded
// from the original implementations) and testdata/golden_new.txt (the
// probes added since, and every probe on answers with usage and structured
// tool calls, recorded before the probes were optimised).
//
//	GOMAXPROCS=1 go test ./probe/benchmark -run '^$' -bench . -benchmem -cpu 1
//
// TestStreamReplay, run only when PROMPTCANARY_STREAM_LINES is set, streams
// a replay file of that many answers through 10 probes on all cores and
// reports the throughput and the aggregate (from this directory, which
// holds the corpus):
//
//	go test -c -o bench.test .
//	PROMPTCANARY_STREAM_LINES=1000000 /usr/bin/time -v ./bench.test -test.run TestStreamReplay -test.v
package benchmark
