package check

import (
	"errors"
	"fmt"
	"slices"
	"testing"
)

type hintedErr struct{ hint string }

func (e hintedErr) Error() string   { return "problem" }
func (e hintedErr) Hints() []string { return []string{e.hint} }

// TestConfigErrorInnerHints: a configuration error shows its own hints,
// then those of the errors it wraps (a provider's, through Open's join).
func TestConfigErrorInnerHints(t *testing.T) {
	err := configErr(errors.Join(fmt.Errorf("open provider a: %w", hintedErr{"fix a"}), errors.New("plain"), hintedErr{"fix b"}), "own")
	if got, want := err.(*ConfigError).Hints(), []string{"own", "fix a", "fix b"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}
