package openai

import (
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"

	"github.com/promptcanary/promptcanary/provider"
)

// refusedParam finds the parameter an API error names as refused: "Unsupported
// parameter: 'top_p'", "Unsupported value: 'temperature' does not support 0",
// "Unknown parameter: 'seed'." (Responses API), "Unrecognized request
// argument supplied: seed" (chat completions).
var refusedParam = regexp.MustCompile(`(?:Unsupported parameter|Unsupported value|Unknown parameter): '([A-Za-z0-9_.\[\]]+)'|Unrecognized request argument supplied: ([A-Za-z0-9_]+)`)

// withHint ends the message of a 400 or 404 that names something the
// model refuses with the canary.yaml setting that fixes it.
func (c *Client) withHint(err error) error {
	var pe *provider.Error
	if !errors.As(err, &pe) || (pe.StatusCode != http.StatusBadRequest && pe.StatusCode != http.StatusNotFound) {
		return err
	}
	if h := hintFor(pe.Message, c.api); h != "" {
		pe.Message += " (" + h + ")"
	}
	return err
}

// hintFor returns the fix for an API error message on api, "" when none
// is known.
func hintFor(msg, api string) string {
	switch {
	case strings.Contains(msg, "only supported in v1/responses"):
		return "set api: responses in the provider's entry under providers: in canary.yaml"
	case strings.Contains(msg, "Use 'max_completion_tokens' instead"):
		return "set max_tokens_field: max_completion_tokens in the provider's entry under providers: in canary.yaml"
	case strings.Contains(msg, "only supported in v1/chat/completions") && api == APIResponses:
		return "set api: chat in the provider's entry under providers: in canary.yaml"
	}
	m := refusedParam.FindStringSubmatch(msg)
	if m == nil {
		return ""
	}
	p := m[1] + m[2]
	if i := strings.IndexAny(p, ".["); i > 0 {
		p = p[:i]
	}
	return fmt.Sprintf("the model refuses %s: remove it with extra_params: {%s: null} in canary.yaml", p, p)
}
