// Package hint gives a provider's error the hints the CLI prints after it
// ("promptcanary: hint: …"): what the user can do about it.
package hint

// Error is an error with hints.
type Error struct {
	err   error
	hints []string
}

// New returns err with hints.
func New(err error, hints ...string) *Error { return &Error{err: err, hints: hints} }

// Error returns the message of the wrapped error.
func (e *Error) Error() string { return e.err.Error() }

// Unwrap returns the wrapped error.
func (e *Error) Unwrap() error { return e.err }

// Hints returns what the user can do about the error.
func (e *Error) Hints() []string { return e.hints }
