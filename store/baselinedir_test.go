package store

import (
	"strings"
	"testing"
)

// TestBaselineDirWithoutAFormat checks that opening a baseline directory
// with no opener given and none registered fails, naming the package
// that provides one.
func TestBaselineDirWithoutAFormat(t *testing.T) {
	defaultDirMu.RLock()
	saved := defaultDir
	defaultDirMu.RUnlock()
	t.Cleanup(func() { RegisterBaselineDir(saved) })
	RegisterBaselineDir(nil)
	if s, err := BaselineDir(nil).Open("baselines"); s != nil || err == nil || !strings.Contains(err.Error(), "store/file") {
		t.Fatalf("got %v, %v; want an error naming store/file", s, err)
	}
}
