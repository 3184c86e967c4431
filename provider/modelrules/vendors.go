package modelrules

import (
	"strconv"
	"strings"
)

// Anthropic's Claude models before 4.1 take temperature and top_p
// together; Claude 3.7 Sonnet, Sonnet 4 and Opus 4 take extended thinking
// with a budget.
// https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking
var claudePlain = Rules{
	Family: "Claude models",
	Vendor: VendorAnthropic,
	Source: "https://docs.anthropic.com/en/api/messages",
}

// Claude Opus 4.1 and the 4.5 and 4.6 models refuse temperature together
// with top_p: "temperature and top_p cannot both be specified for this
// model. Please use only one." ("Use only temperature OR top_p, not
// both" in the migration guide).
// https://docs.anthropic.com/en/docs/about-claude/models/migrating-to-claude-4
var claudeOneSampler = Rules{
	Family:         "Claude 4.1 to 4.6 models (temperature or top_p)",
	Vendor:         VendorAnthropic,
	Source:         "https://docs.anthropic.com/en/docs/about-claude/models/migrating-to-claude-4",
	OneSampler:     true,
	ThinkingBudget: true,
}

// Claude Opus 4.7 and later take no sampling parameters (temperature,
// top_p and top_k are refused with a 400) and no thinking budget: only
// thinking: {type: adaptive}.
// https://docs.anthropic.com/en/docs/about-claude/models/migrating-to-claude-4
// https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking
var claudeNoSampling = Rules{
	Family:               "Claude 4.7 and later models (no sampling parameters)",
	Vendor:               VendorAnthropic,
	Source:               "https://docs.anthropic.com/en/docs/about-claude/models/migrating-to-claude-4",
	NoTemperature:        true,
	NoTopP:               true,
	NoTopK:               true,
	AdaptiveThinkingOnly: true,
}

// claude returns the rules of a Claude model by its version: the first
// one or two small numbers of its name ("claude-sonnet-4-5-20250929" is
// 4.5, "claude-3-7-sonnet" 3.7, "claude-opus-4-20250514" 4.0).
func claude(m string) Rules {
	major, minor := version(strings.TrimPrefix(m, "claude-"))
	v := major*100 + minor
	switch {
	case major == 0:
		return claudePlain
	case v >= 407:
		return claudeNoSampling
	case v >= 401:
		return claudeOneSampler
	case v >= 307:
		r := claudePlain
		r.Family = "Claude 3.7 to 4.0 models"
		r.Source = "https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking"
		r.ThinkingBudget = true
		return r
	}
	return claudePlain
}

// version reads the first two numbers of one or two digits among the
// dash-separated words of m (dates and "v1:0" are not versions).
func version(m string) (major, minor int) {
	var nums []int
	for _, w := range strings.Split(m, "-") {
		if len(w) == 0 || len(w) > 2 {
			continue
		}
		n, err := strconv.Atoi(w)
		if err != nil {
			continue
		}
		nums = append(nums, n)
		if len(nums) == 2 {
			break
		}
	}
	switch len(nums) {
	case 0:
		return 0, 0
	case 1:
		return nums[0], 0
	}
	return nums[0], nums[1]
}

// geminiThinking: Gemini 2.5 and later think, and "the thinking budget
// counts against maxOutputTokens": with a small limit the whole of it can
// go to thinking, and the answer comes back with no parts and
// finishReason MAX_TOKENS. 2.5 Pro and Gemini 3 cannot turn thinking off
// (2.5 Pro's budget is 128 to 32768); 2.5 Flash thinks by default and
// takes 0 to turn it off; 2.5 Flash-Lite does not think unless given a
// budget.
// https://ai.google.dev/gemini-api/docs/thinking
var geminiThinking = Rules{
	Family:          "Gemini thinking models",
	Vendor:          VendorGoogle,
	Source:          "https://ai.google.dev/gemini-api/docs/thinking",
	ThinksInOutput:  true,
	ThinksByDefault: true,
}

// Older Gemini models do not think.
// https://ai.google.dev/gemini-api/docs/models
var geminiPlain = Rules{
	Family: "Gemini models",
	Vendor: VendorGoogle,
	Source: "https://ai.google.dev/gemini-api/docs/models",
}

// gemini returns the rules of a Gemini model by its version
// ("gemini-2.5-flash-lite", "gemini-3-pro-preview").
func gemini(m string) Rules {
	rest := strings.TrimPrefix(m, "gemini-")
	ver, tier, _ := strings.Cut(rest, "-")
	major, minor, _ := strings.Cut(ver, ".")
	maj, err := strconv.Atoi(major)
	mnr, _ := strconv.Atoi(minor)
	if err != nil || maj*10+mnr < 25 {
		return geminiPlain
	}
	r := geminiThinking
	switch {
	case strings.HasPrefix(tier, "flash-lite"):
		r.Family = "Gemini Flash-Lite thinking models (thinking off by default)"
		r.ThinksByDefault = false
	case strings.HasPrefix(tier, "pro"):
		r.Family = "Gemini Pro thinking models (thinking always on)"
		r.MinThinkingBudget = 128
	case maj >= 3:
		r.Family = "Gemini 3 thinking models (thinking always on)"
	}
	return r
}
