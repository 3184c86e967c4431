package store

import (
	"context"

	"github.com/promptcanary/promptcanary"
)

// Gates keeps the upgrade gates of the monitor's checks that name a
// candidate (promptcanary.CandidateGate). A store that can hold them
// implements Gates as well as Store and Monitor; callers find it by type
// assertion.
type Gates interface {
	// SaveGate stores g, replacing a stored gate with the same id (an id
	// follows the rule of CheckID).
	SaveGate(ctx context.Context, g *promptcanary.CandidateGate) error
	// Gates lists the gates of check ("" any) and provider ("" any),
	// newest slot first, at most limit when limit is positive.
	Gates(ctx context.Context, check, provider string, limit int) ([]promptcanary.CandidateGate, error)
}

// CheckGate reports whether Gates accepts g: its id follows the rule of
// CheckID.
func CheckGate(g *promptcanary.CandidateGate) error {
	return CheckID("gate", g.ID)
}
