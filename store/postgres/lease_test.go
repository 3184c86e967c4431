package postgres

import (
	"context"
	"testing"

	"github.com/promptcanary/promptcanary/store/postgres/pgtest"
	"github.com/promptcanary/promptcanary/store/storetest"
)

func TestFleetConformance(t *testing.T) {
	storetest.RunFleet(t, func(t *testing.T) storetest.FleetStore {
		s, err := Open(context.Background(), pgtest.FreshDSN(t))
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}
