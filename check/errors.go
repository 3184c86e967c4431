package check

import (
	"errors"
	"fmt"

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

// FieldError is a mistake in one or more settings the caller gave (a
// field of Settings or of a request): a value out of range, a setting that
// does not apply, two that exclude each other. It names the settings by
// their snake_case field names, so that each caller words them its own
// way: the CLI as flags (--samples), the monitor as monitor.yaml keys.
// Error and Hints word them by field name; Words by the caller's names.
type FieldError struct {
	// Field is the setting the mistake is about ("samples", "max_tokens",
	// "base_url"); Others are further settings it involves, if any.
	Field  string
	Others []string
	// Value is the value given, as the message writes it; "" when the
	// message quotes none.
	Value string
	// Min and Max are the allowed bounds, as the hint writes them; ""
	// when the mistake is not a range, or for Min when the value must
	// only be positive (timeout).
	Min, Max string
	// text writes the message and hints, naming each setting by name.
	text func(name func(field string) string) (string, []string)
}

// Error returns the mistake, naming the settings by their field names.
func (e *FieldError) Error() string {
	msg, _ := e.Words(fieldName)
	return msg
}

// Hints returns the fixes, naming the settings by their field names.
func (e *FieldError) Hints() []string {
	_, hints := e.Words(fieldName)
	return hints
}

// Words returns the message and hints with every setting named by name,
// which is given the field names (Field, Others).
func (e *FieldError) Words(name func(field string) string) (string, []string) {
	if e.text == nil { // built outside this package
		msg := name(e.Field) + " is invalid"
		if e.Value != "" {
			msg = name(e.Field) + " " + e.Value + " is invalid"
		}
		return msg, nil
	}
	return e.text(name)
}

// Fields returns Field, then Others.
func (e *FieldError) Fields() []string { return append([]string{e.Field}, e.Others...) }

// fieldName names a setting by its field name.
func fieldName(field string) string { return field }

// outOfRange is the *ConfigError for field's value v outside [lo, hi],
// with the hint hint (which may name the field: see FieldError.Words).
func outOfRange(field, v, lo, hi string, hint func(name string) string) error {
	return configErr(&FieldError{Field: field, Value: v, Min: lo, Max: hi,
		text: func(name func(string) string) (string, []string) {
			return fmt.Sprintf("%s %s is out of range", name(field), v), []string{hint(name(field))}
		}})
}

// fieldErr is the *ConfigError for a mistake in fields: text writes the
// message and hints given each field's name, in order.
func fieldErr(text func(names ...string) (string, []string), fields ...string) error {
	return configErr(&FieldError{Field: fields[0], Others: fields[1:],
		text: func(name func(string) string) (string, []string) {
			names := make([]string, len(fields))
			for i, f := range fields {
				names[i] = name(f)
			}
			return text(names...)
		}})
}
