package postgres

import (
	"context"
	"testing"

	"github.com/promptcanary/promptcanary/store"
	"github.com/promptcanary/promptcanary/store/storetest"
)

func TestExportConformance(t *testing.T) {
	testDSN(t)
	t.Parallel()
	storetest.RunExport(t, func(t *testing.T) store.Store {
		s, err := Open(context.Background(), freshDSN(t))
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}
