package notify

import (
	"fmt"
	"strings"

	"github.com/promptcanary/promptcanary"
)

// The bounds of the attribution a notification carries. The monitor
// bounds an incident's attribution before it stores it; a notifier bounds
// it again, since a facts list can quote a model's answer and a message
// may come from elsewhere (a test, an older monitor's outbox): each fact
// one line, cut to attributionFactRunes, at most attributionFacts of
// them and a count of the rest.
const (
	attributionFacts     = 8
	attributionFactRunes = 300
	attributionCauseMax  = 40
)

// attributionOf returns the attribution of inc as notifications carry
// it, bounded as above; nil when it names no cause.
func attributionOf(inc promptcanary.Incident) *promptcanary.Attribution {
	a := inc.Attribution
	if a == nil || a.Cause == "" {
		return nil
	}
	out := &promptcanary.Attribution{Cause: cut(oneLine(a.Cause), attributionCauseMax)}
	for i, e := range a.Evidence {
		if i == attributionFacts {
			out.Evidence = append(out.Evidence, fmt.Sprintf("%d more in the drift report", len(a.Evidence)-attributionFacts))
			break
		}
		out.Evidence = append(out.Evidence, cut(oneLine(e), attributionFactRunes))
	}
	return out
}

// oneLine folds every run of white space in s, line breaks included, into
// one space.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
