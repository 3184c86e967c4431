package httpapi

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/promptcanary/promptcanary/internal/suggest"
	"github.com/promptcanary/promptcanary/provider/internal/setting"
)

// settingKeys are the keys of a providers: entry; "timeout" belongs to the
// run engine and is accepted here without being read.
var settingKeys = []string{"url", "method", "headers", "body", "response", "status", "timeout"}

// responseKeys are the keys of the response: mapping.
var responseKeys = []string{"text", "prompt_tokens", "completion_tokens", "finish_reason", "model", "tool_calls"}

// ParseSettings reads the settings of one providers: entry of canary.yaml
// (decoded YAML) into a Config. It reports every problem at once, each
// naming its key; unknown keys get a did-you-mean hint.
func ParseSettings(settings map[string]any) (Config, error) {
	var (
		cfg  Config
		errs []error
	)
	fail := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	for _, k := range setting.Keys(settings) {
		if !slices.Contains(settingKeys, k) {
			fail("unknown key %q%s", k, suggest.Hint(k, settingKeys))
		}
	}
	if v, ok := settings["url"]; ok {
		s, err := scalarString(v)
		if err != nil {
			fail("url: %w", err)
		}
		cfg.URL = s
	}
	if cfg.URL == "" {
		fail("url is required: the address of the endpoint, for example https://app.example.com/api/chat")
	}
	if v, ok := settings["method"]; ok {
		s, err := scalarString(v)
		if err != nil {
			fail("method: %w", err)
		}
		cfg.Method = s
	}
	if v, ok := settings["headers"]; ok && v != nil {
		m, err := stringMap(v)
		if err != nil {
			fail("headers: %w", err)
		}
		cfg.Headers = m
	}
	if v, ok := settings["body"]; ok {
		cfg.Body = v
	}
	var textSet bool
	cfg.Response, textSet = parseResponse(settings["response"], fail)
	if !textSet {
		fail(`response.text is required: the path to the answer in the response body, for example choices.0.message.content, or "." for the whole body`)
	}
	if v, ok := settings["status"]; ok && v != nil {
		codes, err := statusList(v)
		if err != nil {
			fail("status: %w", err)
		}
		cfg.Status = codes
	}
	if len(errs) > 0 {
		return Config{}, errors.Join(errs...)
	}
	return cfg, nil
}

// parseResponse reads the response: mapping of paths; textSet reports
// whether the required text path was given.
func parseResponse(v any, fail func(format string, args ...any)) (r Paths, textSet bool) {
	if v == nil {
		return r, false
	}
	m, ok := v.(map[string]any)
	if !ok {
		fail("response: want a mapping with text and optional prompt_tokens, completion_tokens, finish_reason, model, tool_calls, got %s", setting.YAMLWords.TypeName(v))
	}
	for _, k := range setting.Keys(m) {
		if !slices.Contains(responseKeys, k) {
			fail("response: unknown key %q%s", k, suggest.Hint(k, responseKeys))
			continue
		}
		s, err := scalarString(m[k])
		if err != nil {
			fail("response.%s: %w", k, err)
			continue
		}
		switch k {
		case "text":
			r.Text, textSet = s, true
		case "prompt_tokens":
			r.PromptTokens = s
		case "completion_tokens":
			r.CompletionTokens = s
		case "finish_reason":
			r.FinishReason = s
		case "model":
			r.Model = s
		case "tool_calls":
			r.ToolCalls = s
		}
	}
	return r, textSet
}

// scalarString reads a YAML scalar as a string. Unlike the exec
// provider's args and env, a null here (a url, a header value, a response
// path) reads as "", so that a required one is reported as missing.
func scalarString(v any) (string, error) {
	if v == nil {
		return "", nil
	}
	return setting.YAMLWords.Scalar(v)
}

// stringMap reads a mapping of scalars.
func stringMap(v any) (map[string]string, error) {
	switch m := v.(type) {
	case map[string]string:
		return m, nil
	case map[string]any:
		out := make(map[string]string, len(m))
		var errs []error
		for _, k := range setting.Keys(m) {
			s, err := scalarString(m[k])
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", k, err))
				continue
			}
			out[k] = s
		}
		return out, errors.Join(errs...)
	}
	return nil, fmt.Errorf("want a mapping of names to values, got %s", setting.YAMLWords.TypeName(v))
}

// statusList reads one status code or a list of them.
func statusList(v any) ([]int, error) {
	items, ok := v.([]any)
	if !ok {
		items = []any{v}
	}
	codes := make([]int, 0, len(items))
	var errs []error
	for i, item := range items {
		code, ok := toInt(item)
		if !ok || code < 100 || code > 599 {
			errs = append(errs, fmt.Errorf("item %d: want an HTTP status code from 100 to 599, got %v", i, item))
			continue
		}
		codes = append(codes, code)
	}
	return codes, errors.Join(errs...)
}

func toInt(v any) (int, bool) {
	switch v := v.(type) {
	case int:
		return v, true
	case int64:
		return int(v), v >= math.MinInt32 && v <= math.MaxInt32
	case float64:
		return int(v), v == math.Trunc(v) && math.Abs(v) <= math.MaxInt32
	case string:
		n, err := strconv.Atoi(v)
		return n, err == nil
	}
	return 0, false
}
