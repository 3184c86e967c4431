package sqlite

import (
	"testing"

	"github.com/promptcanary/promptcanary/store/storetest"
)

// TestRenderedMigrationsArePinned keeps the SQL that the migrations made
// from the shared schema run (storetest.PinRendered).
func TestRenderedMigrationsArePinned(t *testing.T) {
	storetest.PinRendered(t, dialect.Schema, migrationFiles, map[string]string{
		"0004_fleet.sql":       "be046e32a01df002fcbb70860f63d0f0ea139a3a8fca323943f69ac353d5e77e",
		"0006_attribution.sql": "34e8ce7346db463eda1fad13ed035b48f14734a654554416a806b240bf27e1e9",
		"0007_gates.sql":       "12d3bbb54df6f90164135c425e0f8872f6ee0ca1de044149eeebd997e9868f8f",
		"0008_run_level.sql":   "221bd6fc6d6a39917990c4a8139287151d4390b7d864fb93aa0e69e9112acda1",
	})
}
