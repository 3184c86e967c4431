package postgres

import (
	"testing"

	"github.com/promptcanary/promptcanary/store"
	"github.com/promptcanary/promptcanary/store/storetest"
)

func TestPruneConformance(t *testing.T) {
	testDSN(t)
	t.Parallel()
	storetest.RunPrune(t, func(t *testing.T) store.Store { return openFresh(t) })
}
