package monitor

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/store"
	"github.com/promptcanary/promptcanary/store/sqlite"
)

// errDiskFull is the failing store's answer to every write.
var errDiskFull = errors.New("database or disk is full (SQLITE_FULL)")

// failingStore is a SQLite store whose writes fail while fail is set, as
// on a full disk: reads still work, and its write check passes (a full
// disk takes the lock), so only real writes tell.
type failingStore struct {
	*sqlite.Store
	fail atomic.Bool
}

func (s *failingStore) err() error {
	if s.fail.Load() {
		return errDiskFull
	}
	return nil
}

func (s *failingStore) ClaimSlot(ctx context.Context, key store.SlotKey, owner string, now time.Time, ttl time.Duration) (store.SlotClaim, error) {
	if err := s.err(); err != nil {
		return store.SlotClaim{}, err
	}
	return s.Store.ClaimSlot(ctx, key, owner, now, ttl)
}

func (s *failingStore) FinishSlot(ctx context.Context, key store.SlotKey, owner string, now time.Time, cr *promptcanary.CheckRun) error {
	if err := s.err(); err != nil {
		return err
	}
	return s.Store.FinishSlot(ctx, key, owner, now, cr)
}

func (s *failingStore) ExtendSlot(ctx context.Context, key store.SlotKey, owner string, until time.Time) error {
	if err := s.err(); err != nil {
		return err
	}
	return s.Store.ExtendSlot(ctx, key, owner, until)
}

func (s *failingStore) RecordStep(ctx context.Context, step store.IncidentStep) error {
	if err := s.err(); err != nil {
		return err
	}
	return s.Store.RecordStep(ctx, step)
}

func (s *failingStore) SaveIncident(ctx context.Context, inc *promptcanary.Incident) error {
	if err := s.err(); err != nil {
		return err
	}
	return s.Store.SaveIncident(ctx, inc)
}

func (s *failingStore) SaveRun(ctx context.Context, r *promptcanary.Run) error {
	if err := s.err(); err != nil {
		return err
	}
	return s.Store.SaveRun(ctx, r)
}

// storeUp reads promptcanary_store_up.
func storeUp(t *testing.T, m *Monitor) float64 {
	t.Helper()
	return value(t, scrape(t, m), "promptcanary_store_up", map[string]string{})
}

// A store that stops taking writes (a full disk) fails /readyz and
// store_up within one interval, says so once in the log (again after
// five minutes), runs nothing, invents no incident however long it lasts,
// and everything comes back once it takes writes again.
func TestUnwritableStore(t *testing.T) {
	f := newFixture(t, "")
	f.saveBaseline(3)
	fs := &failingStore{Store: f.store}
	o := f.options()
	o.Store = fs
	m, err := New(f.config("1m", 1), o)
	if err != nil {
		t.Fatal(err)
	}
	f.flip.set("good")
	f.started(m)
	h := m.Handler()
	if code, _ := get(t, h, "/readyz"); code != 200 || storeUp(t, m) != 1 {
		t.Fatalf("writable store: got /readyz %d, store_up %v; want 200 and 1", code, storeUp(t, m))
	}
	f.clock.Advance(time.Minute) // 10:00: a clean run
	eventually(t, "the first run", func() bool { return f.runsWith(promptcanary.CheckClean) == 1 })
	f.settled(m)
	f.idle()
	cp := map[string]string{"check": "canary", "provider": f.spec}
	if v := value(t, scrape(t, m), "promptcanary_check_up", cp); v != 1 {
		t.Fatalf("after a clean run: got check_up %v, want 1", v)
	}

	fs.fail.Store(true)
	f.clock.Advance(time.Minute) // 10:01: the slot cannot be claimed
	eventually(t, "store_up 0", func() bool { return storeUp(t, m) == 0 })
	f.settled(m)
	f.idle()
	code, body := get(t, h, "/readyz")
	if code != 503 || !strings.Contains(body, "cannot be written") || !strings.Contains(body, "disk is full") {
		t.Errorf("unwritable store: got /readyz %d %q, want 503 saying why", code, body)
	}
	if v := value(t, scrape(t, m), "promptcanary_check_up", cp); v != 0 {
		t.Errorf("unwritable store: got check_up %v, want 0 (nothing measures the check)", v)
	}
	// Four minutes more: twice the interval and more without a measured
	// run, which would be an unmeasured incident for a writable store.
	for range 16 {
		f.clock.Advance(15 * time.Second)
		f.settled(m)
		f.idle()
	}
	if open := m.openIncidents(); len(open) != 0 {
		t.Errorf("unwritable store: got open incidents %+v, want none invented", open)
	}
	if n := strings.Count(f.logs.String(), "the store cannot be written"); n != 1 {
		t.Errorf("after 4m: got %d log lines about the store, want 1", n)
	}
	for range 4 {
		f.clock.Advance(15 * time.Second)
		f.settled(m)
		f.idle()
	}
	if n := strings.Count(f.logs.String(), "the store cannot be written"); n != 2 {
		t.Errorf("after 5m: got %d log lines about the store, want 2", n)
	}

	fs.fail.Store(false)
	f.clock.Advance(time.Minute) // the next slot is claimed and run
	eventually(t, "store_up 1", func() bool { return storeUp(t, m) == 1 })
	eventually(t, "a clean run", func() bool { return f.runsWith(promptcanary.CheckClean) == 2 })
	f.settled(m)
	if code, body := get(t, h, "/readyz"); code != 200 {
		t.Errorf("writable again: got /readyz %d %q, want 200", code, body)
	}
	if !strings.Contains(f.logs.String(), "the store takes writes again") {
		t.Error("the log does not say the store came back")
	}
	for _, inc := range f.incidents(false) {
		t.Errorf("got stored incident %+v, want none", inc)
	}
}

// A SQLite store that opens read-only (here PRAGMA query_only; a file the
// user cannot write behaves the same) is seen at once: CheckStore fails,
// as serve --check-config reports, /readyz fails and store_up is 0 before
// the first slot, and no incident is invented while it lasts.
func TestReadOnlySQLiteStore(t *testing.T) {
	f := newFixture(t, "")
	f.saveBaseline(3)
	path := filepath.Join(f.dir, "store", "history.db")
	ro, err := sqlite.OpenWith(path, sqlite.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	o := f.options()
	o.Store = ro
	m, err := New(f.config("1m", 1), o)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.CheckStore(context.Background()); err == nil || !strings.Contains(err.Error(), "cannot be written") {
		t.Errorf("got CheckStore %v, want the store refused", err)
	}
	f.started(m)
	if code, _ := get(t, m.Handler(), "/readyz"); code != 503 || storeUp(t, m) != 0 {
		t.Fatalf("read-only store: got /readyz %d, store_up %v; want 503 and 0", code, storeUp(t, m))
	}
	for range 20 { // five intervals
		f.clock.Advance(15 * time.Second)
		f.settled(m)
		f.idle()
	}
	if open := m.openIncidents(); len(open) != 0 {
		t.Errorf("read-only store: got open incidents %+v, want none invented", open)
	}
	if runs := f.checkRuns(); len(runs) != 0 {
		t.Errorf("read-only store: got %d check runs, want none", len(runs))
	}
}
