package sqlite

import (
	"testing"

	"github.com/promptcanary/promptcanary/store"
	"github.com/promptcanary/promptcanary/store/storetest"
)

func TestExportConformance(t *testing.T) {
	storetest.RunExport(t, func(t *testing.T) store.Store { return openTemp(t) })
}
