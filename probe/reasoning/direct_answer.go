package reasoning

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
	"github.com/promptcanary/promptcanary/probe/internal/text"
)

// preamblePatterns are filler openings, anchored at the start of the
// opening (no multi-line flag: ^ is the start of the text).
var preamblePatterns = text.Compile("(?i)",
	`^Sure[!,]`,
	`^Of course[!,]`,
	`^Certainly[!,]`,
	`^Great question[!,]`,
	`^Absolutely[!,]`,
	`^I'd be happy to`,
	`^I would be happy to`,
	`^As an AI`,
	`^As a language model`,
	`^I'm glad you asked`,
	`^Thanks? for (asking|your question)`,
	`^Happy to help`,
)

// preambles are preamblePatterns as lowercase literals; punct marks the
// ones that [!,] must follow.
var preambles = []struct {
	lit   string
	punct bool
}{
	{"sure", true}, {"of course", true}, {"certainly", true}, {"great question", true}, {"absolutely", true},
	{"i'd be happy to", false}, {"i would be happy to", false}, {"as an ai", false}, {"as a language model", false},
	{"i'm glad you asked", false}, {"thanks for asking", false}, {"thank for asking", false},
	{"thanks for your question", false}, {"thank for your question", false}, {"happy to help", false},
}

// hasPreamble reports whether opening matches one of preamblePatterns.
func hasPreamble(opening string) bool {
	if text.HasFolds(opening) {
		for _, re := range preamblePatterns {
			if re.MatchString(opening) {
				return true
			}
		}
		return false
	}
	for _, p := range preambles {
		if !text.HasPrefixFold(opening, p.lit) {
			continue
		}
		if !p.punct {
			return true
		}
		if n := len(p.lit); n < len(opening) && (opening[n] == '!' || opening[n] == ',') {
			return true
		}
	}
	return false
}

// openingPreviewChars bounds the opening_preview metadata value.
const openingPreviewChars = 100

const directAnswerID = "direct_answer"

func init() {
	probe.Register(probe.Type{
		ID:          directAnswerID,
		Name:        "Direct Answer (No Preamble)",
		Category:    promptcanary.CategoryReasoning,
		Description: "Detects filler preamble (\"Sure!\", \"Great question!\", \"As an AI…\") before the actual answer.",
		Example: `probes:
  - type: direct_answer
    expect_direct: true
    max_preamble_chars: 80
`,
		Params: []probe.Param{
			{Name: "expect_direct", Kind: probe.Bool, Default: true,
				Doc: "true expects no preamble; false expects one"},
			{Name: "max_preamble_chars", Kind: probe.Int, Default: 80,
				Doc: "characters at the start of the response searched for preamble; must be >= 0"},
		},
		New: func(p probe.Params) (probe.Probe, error) {
			d := &DirectAnswer{}
			d.ExpectDirect, _ = p.Bool("expect_direct")
			d.MaxPreambleChars, _ = p.Int("max_preamble_chars")
			return probe.Validated(d)
		},
	})
}

// DirectAnswer looks for a filler preamble at the start of a response.
type DirectAnswer struct {
	// ExpectDirect, when true, requires no preamble; when false it
	// expects one. The YAML default is true.
	ExpectDirect bool
	// MaxPreambleChars is how many characters (code points) from the start
	// of the response form the opening that is searched. The YAML default
	// is 80.
	MaxPreambleChars int
}

var _ probe.Probe = (*DirectAnswer)(nil)

// Validate reports a negative MaxPreambleChars as a *probe.ParamError.
func (d *DirectAnswer) Validate() error {
	if d.MaxPreambleChars < 0 {
		return &probe.ParamError{Param: "max_preamble_chars", Msg: fmt.Sprintf("must be >= 0, got %d", d.MaxPreambleChars)}
	}
	return nil
}

// Evaluate searches the opening of r's content for a preamble.
func (d *DirectAnswer) Evaluate(_ context.Context, in probe.Input) probe.Result {
	r := in.Response
	opening := strings.TrimSpace(text.Preview(r.Content, max(d.MaxPreambleChars, 0)))
	found := hasPreamble(opening)
	preview := text.Preview(opening, openingPreviewChars)
	res := probe.Result{Metadata: map[string]any{
		"opening_preview": preview,
		"preamble_found":  found,
	}}
	switch {
	case d.ExpectDirect && !found:
		res.Passed, res.Score = true, 1
		res.Details = "Response starts directly, without preamble."
	case d.ExpectDirect:
		var buf [160]byte
		b := append(buf[:0], "Preamble found in the first "...)
		b = strconv.AppendInt(b, int64(d.MaxPreambleChars), 10)
		b = append(b, " characters: "...)
		b = strconv.AppendQuote(b, preview)
		res.Details = string(append(b, '.'))
	case found:
		res.Passed, res.Score = true, 1
		var buf [160]byte
		b := strconv.AppendQuote(append(buf[:0], "Preamble found as expected: "...), preview)
		res.Details = string(append(b, '.'))
	default:
		res.Score = 0.5
		res.Details = "Expected a preamble but the response starts directly."
	}
	return res
}
