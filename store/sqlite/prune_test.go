package sqlite

import (
	"testing"

	"github.com/promptcanary/promptcanary/store"
	"github.com/promptcanary/promptcanary/store/storetest"
)

func TestPruneConformance(t *testing.T) {
	storetest.RunPrune(t, func(t *testing.T) store.Store { return openTemp(t) })
}
