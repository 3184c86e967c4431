package file_test

import (
	"testing"

	"github.com/promptcanary/promptcanary/store"
	"github.com/promptcanary/promptcanary/store/file"
	"github.com/promptcanary/promptcanary/store/storetest"
)

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store { return mustOpen(t, t.TempDir()) })
}

// mustOpen opens the store in dir, failing the test on error.
func mustOpen(t testing.TB, dir string) *file.Store {
	t.Helper()
	s, err := file.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
