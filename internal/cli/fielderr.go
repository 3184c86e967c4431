package cli

import (
	"errors"
	"strings"

	"github.com/promptcanary/promptcanary/check"
	"github.com/promptcanary/promptcanary/internal/quote"
	"github.com/promptcanary/promptcanary/internal/termtext"
)

// flagOf names the setting field of a *check.FieldError as the flag that
// sets it: samples → --samples, max_answer_bytes → --max-answer-bytes,
// providers → --provider.
func flagOf(field string) string {
	if field == "providers" {
		return "--provider"
	}
	return "--" + strings.ReplaceAll(field, "_", "-")
}

// flagWorded is an error whose *check.FieldError is worded with flags.
type flagWorded struct {
	err   error
	msg   string
	hints []string
}

func (e *flagWorded) Error() string { return e.msg }

func (e *flagWorded) Unwrap() error { return e.err }

// Hints returns the hints of the error, worded with flags.
func (e *flagWorded) Hints() []string { return e.hints }

// flagWords returns err with the settings its *check.FieldError names
// worded as the CLI's flags, in its message and hints; err itself when it
// holds none. The error stays what it was for errors.As and exit codes.
func flagWords(err error) error {
	fe, ok := errors.AsType[*check.FieldError](err)
	if !ok {
		return err
	}
	fieldMsg, fieldHints := fe.Words(func(f string) string { return f })
	flagMsg, flagHints := fe.Words(flagOf)
	out := &flagWorded{err: err, msg: strings.Replace(err.Error(), quote.Bound(fieldMsg), quote.Bound(flagMsg), 1)}
	var h hinted
	if errors.As(err, &h) {
		for _, s := range h.Hints() {
			for i := range fieldHints {
				if s == quote.Bound(fieldHints[i]) {
					s = quote.Bound(flagHints[i])
					break
				}
			}
			out.hints = append(out.hints, s)
		}
	}
	return out
}

// warnProblems warns of each run that could not be measured, naming the
// settings its reason names as flags.
func (a *app) warnProblems(problems []check.Problem) {
	for _, p := range problems {
		a.warn("%s: %s", termtext.Safe(p.Model), p.Words(flagOf))
	}
}
