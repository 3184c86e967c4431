// Package judge holds the llm_judge probe: a model, the judge, grades each
// answer against a rubric written in canary.yaml, on an integer scale, and
// the answer passes when its grade reaches pass_at. Importing the package
// registers it with package probe.
//
// The judge must answer with exactly one JSON object, {"score": N,
// "reason": "…"} (see ParseVerdict); an answer in any other format is an
// error result, never a pass. Its calls go through the engine of the run
// (probe.Deps.Models, probe.Caller): the run's concurrency, the judge's rate
// limits, the run's retries and retry budget, and its tokens counted in
// the run's cost. Verdicts are cached by the judge, its parameters and the
// whole prompt it is sent, so that a compare or a confirmation does not
// pay twice for an answer judged before.
package judge
