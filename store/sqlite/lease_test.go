package sqlite

import (
	"path/filepath"
	"testing"

	"github.com/promptcanary/promptcanary/store/storetest"
)

func TestFleetConformance(t *testing.T) {
	storetest.RunFleet(t, func(t *testing.T) storetest.FleetStore {
		s, err := Open(filepath.Join(t.TempDir(), "history.db"))
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}
