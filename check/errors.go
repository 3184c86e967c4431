package check

import (
	"errors"

	"github.com/promptcanary/promptcanary/internal/quote"
)

// ConfigError is a usage or configuration mistake found before anything was
// called: a bad flag value, an unknown provider, a missing baseline. Hints
// tell the user how to fix it.
type ConfigError struct {
	Err   error
	hints []string
}

// Error returns the mistake's message, with every value it quotes (a flag
// value, a provider spec) cut at quote.Max characters.
func (e *ConfigError) Error() string { return quote.Bound(e.Err.Error()) }

// Unwrap returns the mistake, for errors.Is and errors.As.
func (e *ConfigError) Unwrap() error { return e.Err }

// Hints returns the fixes suggested for the mistake, then those of the
// errors it wraps (a provider's own hints, say), bounded as Error is.
func (e *ConfigError) Hints() []string {
	all := append(append([]string(nil), e.hints...), innerHints(e.Err)...)
	out := make([]string, len(all))
	for i, h := range all {
		out[i] = quote.Bound(h)
	}
	return out
}

// innerHints collects the hints of every error in err's tree that has
// them, in order, without looking inside one that does.
func innerHints(err error) []string {
	if h, ok := err.(interface{ Hints() []string }); ok {
		return h.Hints()
	}
	switch u := err.(type) {
	case interface{ Unwrap() []error }:
		var out []string
		for _, e := range u.Unwrap() {
			out = append(out, innerHints(e)...)
		}
		return out
	case interface{ Unwrap() error }:
		if inner := u.Unwrap(); inner != nil {
			return innerHints(inner)
		}
	}
	return nil
}

// configErr wraps err as a *ConfigError with hints.
func configErr(err error, hints ...string) error {
	return &ConfigError{Err: err, hints: hints}
}

// IsConfig reports whether err is (or wraps) a *ConfigError.
func IsConfig(err error) bool {
	var ce *ConfigError
	return errors.As(err, &ce)
}
