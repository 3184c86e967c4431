package notify_test

import (
	"slices"
	"testing"

	"github.com/promptcanary/promptcanary/monitor/config"
	"github.com/promptcanary/promptcanary/monitor/notify"
)

// TestTypesMatchConfig: every type monitor.yaml accepts has a notifier, and
// no notifier is unreachable from the configuration.
func TestTypesMatchConfig(t *testing.T) {
	if got, want := notify.Types(), config.NotifierTypes(); !slices.Equal(got, want) {
		t.Errorf("notify.Types() = %v, config.NotifierTypes() = %v", got, want)
	}
}
