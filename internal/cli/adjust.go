package cli

import (
	"fmt"
	"io"

	"github.com/promptcanary/promptcanary/check"
	"github.com/promptcanary/promptcanary/internal/termtext"
)

// noteAdjustments says on stderr, once per provider before anything is
// called, what the model rules changed in what canary.yaml asked for and
// what they warn about ("note:"), which they did not change.
func (a *app) noteAdjustments(targets []check.Target) {
	for _, t := range targets {
		for _, n := range t.Adjustments {
			printLines(a.stdio.Err, "promptcanary: "+termtext.Safe(t.Spec)+": ", n)
		}
		for _, n := range t.Warnings {
			printLines(a.stdio.Err, "promptcanary: "+termtext.Safe(t.Spec)+": note: ", n)
		}
	}
}

// writeAdjustments lists the model rules' changes, then their warnings,
// for --dry-run and validate; nothing when there are none.
func writeAdjustments(w io.Writer, targets []check.Target) {
	listNotes(w, "Adjusted to what each model takes (see promptcanary models):", targets, func(t check.Target) []string { return t.Adjustments })
	listNotes(w, "Note (sent as asked):", targets, func(t check.Target) []string { return t.Warnings })
}

// listNotes writes head, then each target's notes, when there are any.
func listNotes(w io.Writer, head string, targets []check.Target, notes func(check.Target) []string) {
	for _, t := range targets {
		for _, n := range notes(t) {
			if head != "" {
				fmt.Fprintln(w, head)
				head = ""
			}
			fmt.Fprintf(w, "  %s: %s\n", termtext.Safe(t.Spec), termtext.Safe(n))
		}
	}
}

func hasAdjustments(targets []check.Target) bool {
	for _, t := range targets {
		if len(t.Adjustments)+len(t.Warnings) > 0 {
			return true
		}
	}
	return false
}
