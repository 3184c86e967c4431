package incident

import (
	"fmt"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/textcut"
)

// The bounds of the attribution an incident keeps: its evidence can quote
// a model's answer, which the store, the dashboard and every notification
// carry, so each fact keeps its first line, scrubbed of secrets, cut to
// MaxEvidenceRunes, and at most MaxEvidence facts are kept (the drift
// report holds them all).
const (
	MaxEvidence      = 8
	MaxEvidenceRunes = 300
	// maxCauseRunes bounds the cause, one of a few short words.
	maxCauseRunes = 40
)

// attribution returns a copy of a bounded as the constants above say,
// nil when a names no cause.
func (l *Lifecycle) attribution(a *promptcanary.Attribution) *promptcanary.Attribution {
	if a == nil || a.Cause == "" {
		return nil
	}
	out := &promptcanary.Attribution{Cause: textcut.Runes(l.Line(a.Cause), maxCauseRunes, textcut.Ellipsis)}
	for i, e := range a.Evidence {
		if i == MaxEvidence {
			out.Evidence = append(out.Evidence, fmt.Sprintf("%d more in the drift report", len(a.Evidence)-MaxEvidence))
			break
		}
		out.Evidence = append(out.Evidence, textcut.Runes(l.Line(e), MaxEvidenceRunes, textcut.Ellipsis))
	}
	return out
}
