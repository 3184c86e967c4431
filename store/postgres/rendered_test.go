package postgres

import (
	"flag"
	"testing"

	"github.com/promptcanary/promptcanary/store/storetest"
)

var update = flag.Bool("update", false, "pin new template migrations in "+storetest.RenderedPins)

// TestRenderedMigrationsArePinned keeps the SQL that the migrations made
// from the shared schema run, pinned in testdata (storetest.PinRendered).
func TestRenderedMigrationsArePinned(t *testing.T) {
	storetest.PinRendered(t, dialect.Schema, migrationFiles, *update)
}
