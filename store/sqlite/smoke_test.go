package sqlite

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/store"
)

func TestMonitorSmoke(t *testing.T) {
	s := openTemp(t)
	defer s.Close()
	ctx := context.Background()
	now := time.Now()
	if err := s.SaveCheckRun(ctx, &promptcanary.CheckRun{ID: "cr-1", Check: "c", Provider: "p", Slot: now, Outcome: promptcanary.CheckClean}); err != nil {
		t.Fatal(err)
	}
	crs, err := s.CheckRuns(ctx, "c", "p", 10)
	if err != nil || len(crs) != 1 || !crs[0].Slot.Equal(now) {
		t.Fatal(crs, err)
	}
	inc := &promptcanary.Incident{ID: "inc-1", Fingerprint: "fp", OpenedAt: now, Units: []promptcanary.IncidentUnit{{Unit: "pair", Name: "x", Q: 0.01}}}
	if err := s.SaveIncident(ctx, inc); err != nil {
		t.Fatal(err)
	}
	err = s.SaveIncident(ctx, &promptcanary.Incident{ID: "inc-2", Fingerprint: "fp", OpenedAt: now})
	if !errors.Is(err, store.ErrConflict) {
		t.Fatal(err)
	}
	t.Log(err)
	got, err := s.Incident(ctx, "inc-")
	if err != nil || got.Units[0].Q != 0.01 {
		t.Fatal(got, err)
	}
	if err := s.AddIncidentEvent(ctx, promptcanary.IncidentEvent{IncidentID: "inc-1", At: now, Type: promptcanary.EventOpened}); err != nil {
		t.Fatal(err)
	}
	if err := s.SaveNotification(ctx, promptcanary.NotificationAttempt{ID: "n1", IncidentID: "nope", At: now}); !errors.Is(err, store.ErrNotFound) {
		t.Fatal(err)
	} else {
		t.Log(err)
	}
}
