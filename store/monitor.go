package store

import (
	"errors"
	"fmt"

	"github.com/promptcanary/promptcanary"
)

// ErrConflict is returned, wrapped with what conflicts, when a write would
// break a rule of the store that another writer's record already holds:
// SaveIncident of an open incident whose fingerprint already has another
// open incident. The caller reloads and retries on the stored state.
var ErrConflict = errors.New("conflict")

// CheckCheckRun reports whether a Monitor accepts cr: its id follows the
// rule of CheckID.
func CheckCheckRun(cr *promptcanary.CheckRun) error {
	return CheckID("check run", cr.ID)
}

// CheckIncident reports whether a Monitor accepts inc: its id follows the
// rule of CheckID and it has a fingerprint.
func CheckIncident(inc *promptcanary.Incident) error {
	if err := CheckID("incident", inc.ID); err != nil {
		return err
	}
	if inc.Fingerprint == "" {
		return fmt.Errorf("incident %q has no fingerprint", inc.ID)
	}
	return nil
}

// CheckNotification reports whether a Monitor accepts a: its id and its
// incident's id follow the rule of CheckID.
func CheckNotification(a *promptcanary.NotificationAttempt) error {
	if err := CheckID("notification", a.ID); err != nil {
		return err
	}
	return CheckID("incident", a.IncidentID)
}
