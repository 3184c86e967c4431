package sqlite

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary/store"
)

// A database that cannot be written, by its file's mode (not for root) or
// opened read-only, still reads but fails CheckWrite as it fails every
// write; writable again, it passes.
func TestCheckWriteReadOnly(t *testing.T) {
	tests := []struct {
		name string
		open func(t *testing.T, path string) (*Store, error)
	}{
		{"read-only open", func(t *testing.T, path string) (*Store, error) {
			return OpenWith(path, Options{ReadOnly: true})
		}},
		{"read-only file", func(t *testing.T, path string) (*Store, error) {
			if os.Geteuid() == 0 {
				t.Skip("root writes read-only files")
			}
			if err := os.Chmod(path, 0o444); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.Chmod(path, 0o644) })
			return Open(path)
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			path := filepath.Join(t.TempDir(), "history.db")
			s, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.CheckWrite(ctx); err != nil {
				t.Fatalf("writable store: got %v, want nil", err)
			}
			s.Close()
			ro, err := tc.open(t, path)
			if err != nil {
				t.Fatalf("open the read-only store: %v", err)
			}
			defer ro.Close()
			if _, err := ro.Runs(ctx, store.RunFilter{Limit: 1}); err != nil {
				t.Fatalf("read the read-only store: %v", err)
			}
			if err := ro.CheckWrite(ctx); err == nil {
				t.Error("read-only store: CheckWrite got nil, want an error")
			}
			_, err = ro.ClaimSlot(ctx, store.SlotKey{Check: "c", Provider: "p", Slot: time.Now()}, "me", time.Now(), time.Minute)
			if err == nil || errors.Is(err, store.ErrLeaseLost) {
				t.Errorf("read-only store: ClaimSlot got %v, want the write refused", err)
			}
			if v, err := ro.SchemaVersion(ctx); err != nil || v == 0 {
				t.Errorf("got schema version %d, %v; want the current one", v, err)
			}
		})
	}
}

// A read-only open of a database with no schema says how to create it.
func TestReadOnlyOpenNeedsSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "empty.db")
	if _, err := OpenWith(path, Options{ReadOnly: true}); err == nil {
		t.Fatal("got no error, want the schema missing")
	}
}
