package setting

import (
	"errors"
	"fmt"
	"strings"

	"github.com/promptcanary/promptcanary/internal/httpc"
)

// Model rejects an empty model name, saying what to write instead (want,
// such as "anthropic/MODEL, for example anthropic/claude-sonnet-4-5"), and
// one holding whitespace or control characters.
func Model(model, want string) error {
	if model == "" {
		return errors.New("missing model name: want " + want)
	}
	if strings.IndexFunc(model, func(r rune) bool { return r <= ' ' || r == 0x7f }) >= 0 {
		return fmt.Errorf("invalid model name %q: it holds whitespace or control characters", httpc.Redact(model))
	}
	return nil
}
