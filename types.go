package promptcanary

import (
	"encoding/json"
	"fmt"
	"math"
	"time"
)

// SchemaVersion is the version written into runs and baselines produced by
// this module. Files without a version (the original tool's) read as "0.1".
const SchemaVersion = "1"

// Category classifies what a probe looks at.
type Category string

// The probe categories, as in the original tool.
const (
	CategoryFormat    Category = "format"
	CategoryReasoning Category = "reasoning"
	CategorySafety    Category = "safety"
	CategoryToolUse   Category = "tool_use"
	CategoryFactual   Category = "factual"
	CategoryCustom    Category = "custom"
)

// Categories lists every category in display order.
var Categories = []Category{CategoryFormat, CategoryReasoning, CategorySafety, CategoryToolUse, CategoryFactual, CategoryCustom}

// Valid reports whether c is one of Categories.
func (c Category) Valid() bool {
	for _, k := range Categories {
		if c == k {
			return true
		}
	}
	return false
}

// Tool is a function a prompt offers to the model, described by a JSON Schema.
type Tool struct {
	Name        string         `json:"name"`
	Description string         `json:"description,omitempty"`
	Parameters  map[string]any `json:"parameters,omitempty"`
}

// Prompt is one canary prompt of a suite.
type Prompt struct {
	ID               string   `json:"id"`
	Text             string   `json:"text"`
	Tags             []string `json:"tags,omitempty"`
	Description      string   `json:"description,omitempty"`
	SystemPrompt     string   `json:"system_prompt,omitempty"`
	ExpectedKeywords []string `json:"expected_keywords,omitempty"`
	// Tools are offered to the model with the prompt; ToolChoice is "auto",
	// "none", "required" or a tool name.
	Tools      []Tool `json:"tools,omitempty"`
	ToolChoice string `json:"tool_choice,omitempty"`
	// Messages are conversation turns sent after Text (or instead of it
	// when Text is empty): earlier user and assistant turns, assistant
	// tool calls and their results. The probes judge the model's answer
	// to the last turn. See Conversation.
	Messages []Message `json:"messages,omitempty"`
	// ResponseFormat asks for structured output, nil for free text.
	ResponseFormat *ResponseFormat `json:"response_format,omitempty"`
}

// The roles of a conversation turn.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// Message is one turn of a conversation prompt. A loaded suite's turns are
// complete: every assistant tool call has an ID, and every tool turn names
// the call it answers (ToolCallID) and that call's tool (Name).
type Message struct {
	// Role is RoleSystem, RoleUser, RoleAssistant or RoleTool.
	Role string `json:"role"`
	// Content is the turn's text; for a tool turn, the tool's result.
	Content string `json:"content,omitempty"`
	// ToolCalls are the calls an assistant turn made.
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// ToolCallID is the ID of the call a tool turn answers.
	ToolCallID string `json:"tool_call_id,omitempty"`
	// Name is the tool a tool turn answers for (the called tool's name).
	Name string `json:"name,omitempty"`
}

// The kinds of structured output a prompt may ask for.
const (
	FormatJSONSchema = "json_schema"
	FormatJSONObject = "json_object"
)

// ResponseFormat asks the model for structured output: any JSON object
// (FormatJSONObject) or JSON matching Schema (FormatJSONSchema).
type ResponseFormat struct {
	// Type is FormatJSONSchema or FormatJSONObject.
	Type string `json:"type"`
	// Name names the schema where an API wants one; "" means "response".
	Name string `json:"name,omitempty"`
	// Schema is the JSON Schema of the answer (FormatJSONSchema only).
	Schema map[string]any `json:"schema,omitempty"`
	// Strict asks the API to enforce the schema exactly.
	Strict bool `json:"strict,omitempty"`
}

// SchemaName is the schema's name for APIs that require one.
func (f *ResponseFormat) SchemaName() string {
	if f == nil || f.Name == "" {
		return "response"
	}
	return f.Name
}

// Conversation returns the turns to send, in order: Text as the first
// user turn (when set), then Messages. The system prompt is not among
// them (clients send SystemPrompt in their API's own place); a system
// turn inside Messages is the client's to place likewise.
func (p *Prompt) Conversation() []Message {
	out := make([]Message, 0, 1+len(p.Messages))
	if p.Text != "" {
		out = append(out, Message{Role: RoleUser, Content: p.Text})
	}
	return append(out, p.Messages...)
}

// ToolCall is one structured tool call returned by a provider.
type ToolCall struct {
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// Response is one answer of a provider to one prompt, with what the provider
// reported about it. Field names follow the original tool's LLMResponse.
type Response struct {
	PromptID         string  `json:"prompt_id"`
	ProviderModelID  string  `json:"provider_model_id"`
	Content          string  `json:"content"`
	FinishReason     string  `json:"finish_reason,omitempty"`
	LatencyMS        float64 `json:"latency_ms"`
	PromptTokens     int     `json:"prompt_tokens"`
	CompletionTokens int     `json:"completion_tokens"`
	TotalTokens      int     `json:"total_tokens"`
	// ReasoningTokens are the tokens the model spent thinking, counted
	// within CompletionTokens, when the API reports them (0 otherwise).
	ReasoningTokens int             `json:"reasoning_tokens,omitempty"`
	RawResponse     json.RawMessage `json:"raw_response,omitempty"`
	Timestamp       time.Time       `json:"timestamp,omitzero"`

	// Sample is the index of this response among the samples of its prompt.
	Sample int `json:"sample"`
	// ToolCalls are the structured tool calls the provider returned.
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// ServedModel is the model the provider says answered (it may differ
	// from the requested model string).
	ServedModel       string `json:"served_model,omitempty"`
	SystemFingerprint string `json:"system_fingerprint,omitempty"`
	ResponseID        string `json:"response_id,omitempty"`
	// Attempts is how many calls it took to get this response.
	Attempts int `json:"attempts,omitempty"`
	// Truncated is set when the answer was longer than the run's bound
	// (DefaultMaxAnswerBytes unless configured): Content holds its first
	// part, which is what the probes judged, and OriginalBytes the size
	// of the whole answer in bytes.
	Truncated     bool  `json:"truncated,omitempty"`
	OriginalBytes int64 `json:"original_bytes,omitempty"`
	// OriginalToolCalls is set, with Truncated, when the answer held more
	// tool calls than a client keeps (128): ToolCalls holds the first
	// ones, which the probes judged, and OriginalToolCalls how many the
	// answer held.
	OriginalToolCalls int `json:"original_tool_calls,omitempty"`
	// Spill, when set, is the whole answer, longer than AnswerHeadBytes,
	// moved to a temporary file once the probes judged it: Content holds
	// its head (see Response.SpillContent). The stores write the whole.
	Spill *Spill `json:"-"`
}

// ProbeResult is the verdict of one probe instance on one response.
// ProbeID is the instance id (the probe type unless the suite names it
// otherwise), so results of two probes of one type stay apart.
type ProbeResult struct {
	ProbeID   string         `json:"probe_id"`
	ProbeType string         `json:"probe_type,omitempty"`
	ProbeName string         `json:"probe_name"`
	Category  Category       `json:"category"`
	PromptID  string         `json:"prompt_id"`
	Sample    int            `json:"sample"`
	Passed    bool           `json:"passed"`
	Score     float64        `json:"score"`
	Details   string         `json:"details"`
	Metadata  map[string]any `json:"metadata"`
}

// Key returns the (probe instance, prompt) pair the result belongs to.
func (r *ProbeResult) Key() PairKey { return PairKey{ProbeID: r.ProbeID, PromptID: r.PromptID} }

// PairKey identifies one (probe instance, prompt) pair across runs.
type PairKey struct {
	ProbeID  string
	PromptID string
}

// String returns "probe_id/prompt_id".
func (k PairKey) String() string { return k.ProbeID + "/" + k.PromptID }

// CallError records a provider call that failed for good: the prompt was not
// measured for that sample. Errors are never drift.
type CallError struct {
	PromptID string `json:"prompt_id"`
	Sample   int    `json:"sample"`
	Provider string `json:"provider,omitempty"`
	Message  string `json:"message"`
	Attempts int    `json:"attempts,omitempty"`
}

// ProviderConfig identifies a provider and model and the sampling parameters
// of a run. Seed is nil when no seed is sent.
type ProviderConfig struct {
	ModelID     string         `json:"model_id"`
	Temperature float64        `json:"temperature"`
	MaxTokens   int            `json:"max_tokens"`
	Seed        *int64         `json:"seed"`
	ExtraParams map[string]any `json:"extra_params"`
}

// Run is one execution of a suite against one provider.
type Run struct {
	SchemaVersion string         `json:"schema_version,omitempty"`
	RunID         string         `json:"run_id"`
	SuiteName     string         `json:"suite_name"`
	Provider      ProviderConfig `json:"provider"`
	StartedAt     time.Time      `json:"started_at"`
	FinishedAt    time.Time      `json:"finished_at,omitzero"`
	ProbeResults  []ProbeResult  `json:"probe_results"`
	LLMResponses  []Response     `json:"llm_responses"`

	// Samples is the number of samples requested per prompt (0 or 1 for a
	// single-sample run).
	Samples int `json:"samples,omitempty"`
	// Errors lists the calls that failed for good.
	Errors []CallError `json:"errors,omitempty"`
	// ConfigHash fingerprints everything that defines the run's results
	// (prompts, probes, model, sampling parameters).
	ConfigHash string `json:"config_hash,omitempty"`
	// PromptHashes fingerprint each prompt with its probes, system prompt,
	// tools and sampling parameters (not the model or seed); a prompt whose
	// hash differs from the baseline's is compared as "stale baseline".
	PromptHashes map[string]string `json:"prompt_hashes,omitempty"`
	// Interrupted is set when the run was cancelled before it finished.
	Interrupted bool `json:"interrupted,omitempty"`
	// Tool names the program and version that wrote the run.
	Tool string `json:"tool,omitempty"`
	// CostUSD is the estimated cost of the run's calls from the price
	// table; nil when the model's price is unknown.
	CostUSD *float64 `json:"cost_usd,omitempty"`
	// Adjustments say, one sentence each, what the model's rules changed
	// in the request canary.yaml asked for (Provider holds what was sent),
	// such as "gpt-5 takes no temperature but the default 1: sends 1
	// instead of 0".
	Adjustments []string `json:"adjustments,omitempty"`
	// Warnings say what the model's rules warn about in the request as
	// sent, which they did not change, such as a Gemini model whose
	// thinking may spend the whole max_tokens.
	Warnings []string `json:"warnings,omitempty"`
	// Build marks a run made by 'promptcanary baseline build': which build
	// and which of its runs, so that an interrupted build can be resumed
	// from the runs it recorded. Nil for every other run.
	Build *BuildMark `json:"build,omitempty"`
}

// BuildMark says which build of a pooled baseline a run belongs to.
type BuildMark struct {
	// ID identifies the build; every run of the build, of every
	// provider, carries it.
	ID string `json:"id"`
	// Run is the run's place in the build, from 1, and Runs the number
	// of runs the build pools.
	Run  int `json:"run"`
	Runs int `json:"runs"`
	// Samples is the baseline's samples per prompt, split over the runs.
	Samples int `json:"samples"`
	// Every is the time from the start of one run to the start of the
	// next, as Go writes a duration ("1h0m0s").
	Every string `json:"every"`
}

// Tokens returns the prompt and completion tokens of all responses.
func (r *Run) Tokens() (prompt, completion int) {
	for i := range r.LLMResponses {
		prompt += r.LLMResponses[i].PromptTokens
		completion += r.LLMResponses[i].CompletionTokens
	}
	return prompt, completion
}

// Measured reports whether the run has at least one probe result. A run
// whose every call failed measured nothing: its scores are not 1 but
// undefined, and reports show them as "n/a".
func (r *Run) Measured() bool { return len(r.ProbeResults) > 0 }

// OverallScore is the mean score of all probe results, NaN when there are
// none: a run that measured nothing has no score ("n/a"), not a perfect
// one.
func (r *Run) OverallScore() float64 {
	if len(r.ProbeResults) == 0 {
		return math.NaN()
	}
	var s float64
	for i := range r.ProbeResults {
		s += r.ProbeResults[i].Score
	}
	return s / float64(len(r.ProbeResults))
}

// PassRate is the fraction of probe results that passed, NaN when there
// are none (a rate of nothing is "n/a", never 100%).
func (r *Run) PassRate() float64 {
	if len(r.ProbeResults) == 0 {
		return math.NaN()
	}
	n := 0
	for i := range r.ProbeResults {
		if r.ProbeResults[i].Passed {
			n++
		}
	}
	return float64(n) / float64(len(r.ProbeResults))
}

// Failed returns the probe results that did not pass.
func (r *Run) Failed() []ProbeResult {
	var out []ProbeResult
	for _, pr := range r.ProbeResults {
		if !pr.Passed {
			out = append(out, pr)
		}
	}
	return out
}

// Duration is the wall-clock duration of the run, 0 when unfinished.
func (r *Run) Duration() time.Duration {
	if r.FinishedAt.IsZero() {
		return 0
	}
	return r.FinishedAt.Sub(r.StartedAt)
}

// SamplesPerPrompt returns the largest sample count seen for any prompt.
func (r *Run) SamplesPerPrompt() int {
	n := 0
	for i := range r.ProbeResults {
		if s := r.ProbeResults[i].Sample + 1; s > n {
			n = s
		}
	}
	for i := range r.LLMResponses {
		if s := r.LLMResponses[i].Sample + 1; s > n {
			n = s
		}
	}
	return n
}

// Baseline is a saved run that later runs are compared against. Field names
// follow the original tool's BaselineSnapshot, so its files load unchanged.
type Baseline struct {
	SnapshotID    string         `json:"snapshot_id"`
	CreatedAt     time.Time      `json:"created_at"`
	SuiteName     string         `json:"suite_name"`
	Provider      ProviderConfig `json:"provider"`
	SchemaVersion string         `json:"schema_version"`
	RunResult     Run            `json:"run_result"`
	Note          string         `json:"_note,omitempty"`
	// Runs records the runs a baseline built by 'promptcanary baseline
	// build' pools, in order: RunResult then holds the probe results and
	// answers of all of them, their samples renumbered one after another
	// (the samples of Runs[i] start at Runs[i].FirstSample), and carries
	// the id of the last one. Empty for a baseline of one run, and in the
	// original tool's files.
	Runs []BaselineRun `json:"runs,omitempty"`
}

// BaselineRun is one of the runs a pooled baseline was built from.
type BaselineRun struct {
	RunID      string    `json:"run_id"`
	StartedAt  time.Time `json:"started_at"`
	FinishedAt time.Time `json:"finished_at"`
	// FirstSample is the baseline's sample index of this run's sample 0.
	FirstSample int `json:"first_sample"`
	// Samples is the number of samples per prompt this run took.
	Samples int `json:"samples"`
}

// Holds reports whether the baseline's sample index sample is one of this
// run's.
func (r BaselineRun) Holds(sample int) bool {
	return sample >= r.FirstSample && sample < r.FirstSample+r.Samples
}

// Severity grades a drift report.
type Severity string

// The severity levels, from none to critical.
const (
	SeverityNone     Severity = "none"
	SeverityLow      Severity = "low"
	SeverityMedium   Severity = "medium"
	SeverityHigh     Severity = "high"
	SeverityCritical Severity = "critical"
)

var severityRank = map[Severity]int{SeverityNone: 0, SeverityLow: 1, SeverityMedium: 2, SeverityHigh: 3, SeverityCritical: 4}

// Rank orders severities: none 0 … critical 4; an unknown value ranks -1.
func (s Severity) Rank() int {
	if r, ok := severityRank[s]; ok {
		return r
	}
	return -1
}

// ParseSeverity parses a severity name.
func ParseSeverity(s string) (Severity, error) {
	if Severity(s).Rank() < 0 {
		return "", fmt.Errorf("unknown severity %q (want none, low, medium, high or critical)", s)
	}
	return Severity(s), nil
}

// Status says what happened to one pair between baseline and current run.
type Status string

// The statuses of a compared pair.
const (
	StatusRegression  Status = "regression"
	StatusImprovement Status = "improvement"
	StatusStable      Status = "stable"
	// StatusAdded marks a pair present only in the current run.
	StatusAdded Status = "added"
	// StatusRemoved marks a pair present only in the baseline.
	StatusRemoved Status = "removed"
	// StatusNotMeasured marks a pair whose current calls failed.
	StatusNotMeasured Status = "not_measured"
	// StatusStale marks a pair whose baseline was taken with another configuration.
	StatusStale Status = "stale_baseline"
	// StatusInsufficient marks a pair with too few samples to decide.
	StatusInsufficient Status = "insufficient_evidence"
)

// SampleStats summarises the samples of one side of a pair.
type SampleStats struct {
	N         int     `json:"n"`
	Passes    int     `json:"passes"`
	MeanScore float64 `json:"mean_score"`
}

// PassRate is Passes/N, or 0 when N is 0.
func (s SampleStats) PassRate() float64 {
	if s.N == 0 {
		return 0
	}
	return float64(s.Passes) / float64(s.N)
}

// Comparison is the side-by-side comparison of one (probe, prompt) pair.
// The single-value fields keep the original tool's names; Baseline and
// Current summarise all samples of each side.
type Comparison struct {
	ProbeID   string   `json:"probe_id"`
	ProbeType string   `json:"probe_type,omitempty"`
	ProbeName string   `json:"probe_name"`
	Category  Category `json:"category"`
	PromptID  string   `json:"prompt_id"`
	Status    Status   `json:"status"`

	BaselineScore   float64 `json:"baseline_score"`
	CurrentScore    float64 `json:"current_score"`
	ScoreDelta      float64 `json:"score_delta"`
	BaselinePassed  bool    `json:"baseline_passed"`
	CurrentPassed   bool    `json:"current_passed"`
	Regression      bool    `json:"regression"`
	Improvement     bool    `json:"improvement"`
	BaselineDetails string  `json:"baseline_details"`
	CurrentDetails  string  `json:"current_details"`

	Baseline SampleStats `json:"baseline_stats"`
	Current  SampleStats `json:"current_stats"`
	// Severity of this pair's regression, none otherwise.
	Severity Severity `json:"severity,omitempty"`
	// Evidence is the one-line statistical evidence, when a test was run.
	Evidence string `json:"evidence,omitempty"`
	// SharedTestWith names the pair ("probe_id/prompt_id") whose test this
	// pair shares because their results are identical sample for sample;
	// its verdict, severity and evidence are that test's.
	SharedTestWith string `json:"shared_test_with,omitempty"`

	// BaselineExample and CurrentExample are a typical answer of each side
	// (the most frequent one, ties to the first), shown side by side for a
	// regression.
	BaselineExample string `json:"baseline_example,omitempty"`
	CurrentExample  string `json:"current_example,omitempty"`
	// BaselineDistinct and CurrentDistinct count the distinct answers each
	// side gave across its samples (0 when the answers are unknown).
	BaselineDistinct int `json:"baseline_distinct,omitempty"`
	CurrentDistinct  int `json:"current_distinct,omitempty"`
}

// Compared reports whether both sides of the pair were measured under the
// same configuration, so that its status is a verdict (insufficient
// evidence included); added, removed, not measured and stale pairs were
// not compared.
func (c *Comparison) Compared() bool {
	switch c.Status {
	case StatusRegression, StatusImprovement, StatusStable, StatusInsufficient:
		return true
	}
	return false
}

// DriftReport is the outcome of comparing a run against a baseline.
type DriftReport struct {
	ReportID           string         `json:"report_id"`
	GeneratedAt        time.Time      `json:"generated_at"`
	SuiteName          string         `json:"suite_name"`
	Provider           ProviderConfig `json:"provider"`
	BaselineSnapshotID string         `json:"baseline_snapshot_id"`
	BaselineCreatedAt  time.Time      `json:"baseline_created_at"`
	BaselineModelID    string         `json:"baseline_model_id,omitempty"`
	CurrentRunID       string         `json:"current_run_id"`
	Comparisons        []Comparison   `json:"comparisons"`

	// Method names the decision rule: "single_sample" (the original rule)
	// or "statistical".
	Method   string   `json:"method"`
	HasDrift bool     `json:"has_drift"`
	Severity Severity `json:"severity"`
	Summary  string   `json:"summary"`
	// OverallBaselineScore and OverallCurrentScore are the mean scores of
	// each side over the compared pairs; NaN when nothing was compared
	// (Compared() == 0), which the Summary then says, and null in JSON:
	// a mean of nothing is no score.
	OverallBaselineScore float64 `json:"overall_baseline_score"`
	OverallCurrentScore  float64 `json:"overall_current_score"`
	// Notes are plain-language caveats shown with the report.
	Notes []string `json:"notes,omitempty"`
	// Errors are the current run's failed calls, shown apart from drift.
	Errors []CallError `json:"errors,omitempty"`
	// Statistics holds the statistical evidence of a multi-sample comparison.
	Statistics *DriftStatistics `json:"statistics,omitempty"`
	// Identity is the model identity test of the raw answers (see
	// IdentityTest); nil when no prompt has two answers on each side.
	Identity *IdentityTest `json:"identity,omitempty"`
	// Economics tests tokens, latency and cost against the baseline (see
	// Economics); nil when no prompt was answered on both sides.
	Economics *Economics `json:"economics,omitempty"`
	// Attribution is the likely cause of what the report found (see
	// Attribution); nil when none was derived.
	Attribution *Attribution `json:"attribution,omitempty"`
	// RunSpread is how much of the suite's change lies within the model's
	// usual run-to-run spread (see RunSpread); nil unless the baseline
	// pools two or more runs.
	RunSpread *RunSpread `json:"run_spread,omitempty"`
	// Adjustments and Warnings are the current run's (see Run.Adjustments
	// and Run.Warnings): what the model's rules changed in the request, and
	// what they warn about.
	Adjustments []string `json:"adjustments,omitempty"`
	Warnings    []string `json:"warnings,omitempty"`
}

// MarshalJSON encodes the report as its fields, with an overall score that
// is not a number (nothing was compared) written as null: a mean of
// nothing is no score, and encoding/json refuses NaN. A type that embeds
// DriftReport inherits this method, so such a type marshals as the report
// alone.
func (d DriftReport) MarshalJSON() ([]byte, error) {
	return json.Marshal(d.JSONValue())
}

// JSONValue returns the value MarshalJSON encodes, which has no
// MarshalJSON method: a json.Encoder writes it as the bytes MarshalJSON
// returns without holding them twice (json.Marshal of a report copies its
// MarshalJSON's output, tens of megabytes for a statistical run's).
func (d DriftReport) JSONValue() any {
	type fields DriftReport // the same fields, without this method
	b, c := number(d.OverallBaselineScore), number(d.OverallCurrentScore)
	if b != nil && c != nil {
		return fields(d)
	}
	// The scores move to the end of the object: their fields at the top
	// level shadow those of the embedded report.
	return struct {
		fields
		OverallBaselineScore *float64 `json:"overall_baseline_score"`
		OverallCurrentScore  *float64 `json:"overall_current_score"`
	}{fields(d), b, c}
}

// Count returns how many comparisons have status s.
func (d *DriftReport) Count(s Status) int {
	n := 0
	for i := range d.Comparisons {
		if d.Comparisons[i].Status == s {
			n++
		}
	}
	return n
}

// Compared returns how many comparisons were compared (see
// Comparison.Compared). A report with none compared nothing: it is no
// evidence of "no drift".
func (d *DriftReport) Compared() int {
	n := 0
	for i := range d.Comparisons {
		if d.Comparisons[i].Compared() {
			n++
		}
	}
	return n
}

// PassRates returns the pass rates of the current run and of the baseline
// over the pairs the report compared, pooling every sample of each side
// (a pair compared from single values counts its one result): the run's
// "pass rate" wherever the monitor shows one. Both are NaN when nothing
// was compared.
func (d *DriftReport) PassRates() (current, baseline float64) {
	var cp, cn, bp, bn int
	for i := range d.Comparisons {
		c := &d.Comparisons[i]
		if !c.Compared() {
			continue
		}
		p, n := c.Current.Passes, c.Current.N
		if n == 0 {
			p, n = b2i(c.CurrentPassed), 1
		}
		cp, cn = cp+p, cn+n
		p, n = c.Baseline.Passes, c.Baseline.N
		if n == 0 {
			p, n = b2i(c.BaselinePassed), 1
		}
		bp, bn = bp+p, bn+n
	}
	return fraction(cp, cn), fraction(bp, bn)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// fraction is a/b, NaN when b is 0: a rate of nothing is no rate.
func fraction(a, b int) float64 {
	if b == 0 {
		return math.NaN()
	}
	return float64(a) / float64(b)
}

// Regressions returns the comparisons flagged as regressions.
func (d *DriftReport) Regressions() []Comparison {
	var out []Comparison
	for _, c := range d.Comparisons {
		if c.Regression {
			out = append(out, c)
		}
	}
	return out
}
