package postgres

import (
	"testing"

	"github.com/promptcanary/promptcanary/store/storetest"
)

// TestRenderedMigrationsArePinned keeps the SQL that the migrations made
// from the shared schema run (storetest.PinRendered).
func TestRenderedMigrationsArePinned(t *testing.T) {
	storetest.PinRendered(t, dialect.Schema, migrationFiles, map[string]string{
		"0003_fleet.sql":       "7ea021d932ae9b96a30aac350604c1a35f11c264860a848f59363290ff11218a",
		"0005_attribution.sql": "6bd3258817a8e509fe6bbe85718d1b7e9feb67fa1297fea702e5126b1d1d1973",
		"0006_gates.sql":       "cd507eb221ba27b66f5093eb0999d419fa0af7b30d45c8568a0ca32f8df4b172",
		"0007_run_level.sql":   "1d120ffef712914374a205f927edbb11b2dad3875fd8283b440e0f88507df371",
	})
}
