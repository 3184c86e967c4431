package cli

import (
	"fmt"
	"io"

	"github.com/promptcanary/promptcanary/check"
	"github.com/promptcanary/promptcanary/internal/termtext"
)

// noteAdjustments says on stderr, once per provider before anything is
// called, what the model rules changed in what canary.yaml asked for.
func (a *app) noteAdjustments(targets []check.Target) {
	for _, t := range targets {
		for _, n := range t.Adjustments {
			printLines(a.stdio.Err, "promptcanary: "+termtext.Safe(t.Spec)+": ", n)
		}
	}
}

// writeAdjustments lists the model rules' changes for --dry-run and
// validate; nothing when there are none.
func writeAdjustments(w io.Writer, targets []check.Target) {
	head := false
	for _, t := range targets {
		for _, n := range t.Adjustments {
			if !head {
				fmt.Fprintln(w, "Adjusted to what each model takes (see promptcanary models):")
				head = true
			}
			fmt.Fprintf(w, "  %s: %s\n", termtext.Safe(t.Spec), termtext.Safe(n))
		}
	}
}

func hasAdjustments(targets []check.Target) bool {
	for _, t := range targets {
		if len(t.Adjustments) > 0 {
			return true
		}
	}
	return false
}
