package similarity

import (
	"testing"

	"github.com/promptcanary/promptcanary/probe/internal/probetest"
)

// TestConfigErrors loads each testdata/invalid-*.yaml suite and checks the
// exact problems and hints a user sees.
func TestConfigErrors(t *testing.T) {
	const (
		minDoc    = "lowest passing similarity, in (0,1], for example 0.6; a run without a baseline shows how similar the model's answers are to one another"
		rangeHint = "the lowest passing similarity, above 0 and at most 1, for example min: 0.6"
	)
	probetest.CheckInvalidFiles(t, []probetest.Invalid{
		{File: "invalid-min-missing.yaml", Want: []string{
			"invalid-min-missing.yaml:3: probes[0] (similarity).min: required parameter is missing", minDoc,
		}},
		{File: "invalid-min-range.yaml", Want: []string{
			"invalid-min-range.yaml:4: probes[0] (similarity).min: must be in (0,1], got 0", rangeHint,
			"invalid-min-range.yaml:6: probes[1] (similarity).min: must be in (0,1], got 1.5", rangeHint,
		}},
		{File: "invalid-min-type.yaml", Want: []string{
			`invalid-min-type.yaml:4: probes[0] (similarity).min: must be a number, got string "high"`, minDoc,
		}},
		{File: "invalid-metric.yaml", Want: []string{
			`invalid-metric.yaml:4: probes[0] (similarity).metric: invalid value "bleu"`, "use one of: chrf, token_f1, rouge_l, embedding",
			`invalid-metric.yaml:6: probes[0] (similarity).against: invalid value "median"`, "use one of: max, mean",
		}},
		{File: "invalid-embedder-missing.yaml", Want: []string{
			"invalid-embedder-missing.yaml:2: probes[0] (similarity).embedder: required by metric: embedding",
			"name the embedding model, for example embedder: openai/text-embedding-3-small or embedder: ollama/nomic-embed-text",
		}},
		{File: "invalid-embedder-unused.yaml", Want: []string{
			"invalid-embedder-unused.yaml:4: probes[0] (similarity).embedder: is used by metric: embedding only, and the metric is chrf",
			"set metric: embedding to compare the answers' embeddings, or remove embedder:",
		}},
		{File: "invalid-embedder-config.yaml", Want: []string{
			`invalid-embedder-config.yaml:5: probes[0] (similarity).embedder: no embeddings client for "anthropic"; use openai/MODEL (the OpenAI API or any compatible server) or ollama/MODEL`,
			"the embedder is openai/MODEL or ollama/MODEL, for example embedder: openai/text-embedding-3-small",
			"invalid-embedder-config.yaml:10: probes[1] (similarity).embedder_base_url: want a server address such as http://localhost:11434 or 0.0.0.0:11434",
			"for example embedder_base_url: http://localhost:11434",
			"invalid-embedder-config.yaml:15: probes[2] (similarity).embedder_api_key_env: want the name of an environment variable (letters, digits and _), not the key itself",
			"name the variable that holds the key, for example embedder_api_key_env: OPENAI_API_KEY",
			`invalid-embedder-config.yaml:19: probes[3] (similarity).embedder: must be NAME/MODEL, got "ollama"`,
			"for example embedder: openai/text-embedding-3-small or embedder: ollama/nomic-embed-text",
		}},
		{File: "invalid-unknown.yaml", Want: []string{
			"invalid-unknown.yaml:5: probes[0] (similarity).treshold: unknown parameter for similarity", "known parameters: metric, min, against, embedder, embedder_base_url, embedder_api_key_env",
		}},
	})
}
