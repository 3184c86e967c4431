package suite

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
)

// The canonical forms hashed by Hash and PromptHash. Lists are sorted by id
// because results are keyed by id, so order never changes what is measured;
// encoding/json sorts map keys.
type (
	hashPrompt struct {
		ID               string              `json:"id"`
		Text             string              `json:"text"`
		SystemPrompt     string              `json:"system_prompt,omitempty"`
		Tools            []promptcanary.Tool `json:"tools,omitempty"`
		ToolChoice       string              `json:"tool_choice,omitempty"`
		ExpectedKeywords []string            `json:"expected_keywords,omitempty"`
		// Messages and ResponseFormat are left out when unset, so the
		// hashes of prompts without them did not change when they came.
		Messages       []promptcanary.Message       `json:"messages,omitempty"`
		ResponseFormat *promptcanary.ResponseFormat `json:"response_format,omitempty"`
	}
	hashProbe struct {
		ID          string         `json:"id"`
		Type        string         `json:"type"`
		Params      map[string]any `json:"params,omitempty"`
		Fingerprint string         `json:"fingerprint,omitempty"`
	}
	hashConfig struct {
		ModelID     string         `json:"model_id"`
		Temperature float64        `json:"temperature"`
		MaxTokens   int            `json:"max_tokens"`
		Seed        *int64         `json:"seed"`
		ExtraParams map[string]any `json:"extra_params,omitempty"`
	}
	suiteDoc struct {
		Prompts      []hashPrompt           `json:"prompts"`
		Probes       []hashProbe            `json:"probes"`
		PromptProbes map[string][]hashProbe `json:"prompt_probes,omitempty"`
		Config       hashConfig             `json:"config"`
	}
	promptDoc struct {
		Prompt hashPrompt  `json:"prompt"`
		Probes []hashProbe `json:"probes"`
		Config hashConfig  `json:"config"`
	}
)

// Hash fingerprints everything that defines a run's results: the prompts
// (id, text, conversation turns, system prompt, tools, tool choice,
// response format, expected keywords), the probe
// instances (id, type, parameters), which prompt has which own probes, and
// the model and sampling parameters of cfg. It is the hex SHA-256 of their
// canonical JSON. The suite's name, description and tags, prompt tags and
// descriptions, YAML key order and the order of prompts and probes do not
// count.
func (s *Suite) Hash(cfg promptcanary.ProviderConfig) string {
	doc := suiteDoc{
		Prompts: make([]hashPrompt, len(s.Prompts)),
		Probes:  hashProbes(s.Probes),
		Config:  hashCfg(cfg),
	}
	for i := range s.Prompts {
		doc.Prompts[i] = canonPrompt(&s.Prompts[i])
	}
	slices.SortFunc(doc.Prompts, func(a, b hashPrompt) int { return strings.Compare(a.ID, b.ID) })
	if len(s.PromptProbes) > 0 {
		doc.PromptProbes = make(map[string][]hashProbe, len(s.PromptProbes))
		for id, insts := range s.PromptProbes {
			if len(insts) > 0 {
				doc.PromptProbes[id] = hashProbes(insts)
			}
		}
	}
	return digest(doc)
}

// PromptHash fingerprints one prompt the way Hash fingerprints the suite:
// the prompt, the probes that judge it (suite-wide and its own) and cfg. A
// later comparison can use it to mark only the pairs of changed prompts
// stale. It returns "" for an unknown prompt id.
func (s *Suite) PromptHash(promptID string, cfg promptcanary.ProviderConfig) string {
	i := slices.IndexFunc(s.Prompts, func(p promptcanary.Prompt) bool { return p.ID == promptID })
	if i < 0 {
		return ""
	}
	return digest(promptDoc{
		Prompt: canonPrompt(&s.Prompts[i]),
		Probes: hashProbes(s.ProbesFor(promptID)),
		Config: hashCfg(cfg),
	})
}

func canonPrompt(p *promptcanary.Prompt) hashPrompt {
	tools := make([]promptcanary.Tool, len(p.Tools))
	for i, t := range p.Tools {
		tools[i] = promptcanary.Tool{Name: t.Name, Description: t.Description, Parameters: canonMap(t.Parameters)}
	}
	var format *promptcanary.ResponseFormat
	if f := p.ResponseFormat; f != nil {
		format = &promptcanary.ResponseFormat{Type: f.Type, Name: f.Name, Schema: canonMap(f.Schema), Strict: f.Strict}
	}
	return hashPrompt{
		ID:               p.ID,
		Text:             p.Text,
		SystemPrompt:     p.SystemPrompt,
		Tools:            tools,
		ToolChoice:       p.ToolChoice,
		ExpectedKeywords: p.ExpectedKeywords,
		Messages:         p.Messages,
		ResponseFormat:   format,
	}
}

func hashProbes(insts []probe.Instance) []hashProbe {
	out := make([]hashProbe, len(insts))
	for i, in := range insts {
		out[i] = hashProbe{ID: in.ID, Type: in.Type, Params: canonMap(in.Params)}
		if f, ok := in.Probe.(probe.Fingerprinter); ok {
			out[i].Fingerprint = f.Fingerprint()
		}
	}
	slices.SortFunc(out, func(a, b hashProbe) int { return strings.Compare(a.ID, b.ID) })
	return out
}

func hashCfg(cfg promptcanary.ProviderConfig) hashConfig {
	return hashConfig{
		ModelID:     cfg.ModelID,
		Temperature: cfg.Temperature,
		MaxTokens:   cfg.MaxTokens,
		Seed:        cfg.Seed,
		ExtraParams: canonMap(cfg.ExtraParams),
	}
}

// canonMap returns m with every value made JSON-encodable (see canon); nil
// for an empty map, so an absent and an empty map hash alike.
func canonMap[M ~map[string]any](m M) map[string]any {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = canon(v)
	}
	return out
}

// canon makes v encodable by encoding/json deterministically: NaN and
// infinities become strings, and values json cannot encode become their
// fmt representation.
func canon(v any) any {
	switch x := v.(type) {
	case nil, string, bool, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, []string:
		return v
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Sprint(x)
		}
		return x
	case float32:
		return canon(float64(x))
	case map[string]any:
		return canonMap(x)
	case probe.Params:
		return canonMap(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = canon(e)
		}
		return out
	}
	if _, err := json.Marshal(v); err != nil {
		return fmt.Sprintf("%T:%v", v, v)
	}
	return v
}

func digest(doc any) string {
	b, err := json.Marshal(doc)
	if err != nil {
		// canon leaves nothing json rejects; hash the error text rather than
		// panic should that ever change.
		b = []byte("unencodable: " + err.Error())
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
