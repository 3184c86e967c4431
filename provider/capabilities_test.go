package provider_test

import (
	"testing"

	"github.com/promptcanary/promptcanary/provider"
	_ "github.com/promptcanary/promptcanary/provider/builtin"
)

// The capabilities each built-in provider declares are the decisions the
// name lists made before them: a base URL for every provider but sim,
// replay, http and exec; free calls for sim, replay, ollama, exec and
// hosted_vllm; a stream for replay alone.
func TestBuiltinCapabilities(t *testing.T) {
	noBaseURL := map[string]bool{"sim": true, "replay": true, "http": true, "exec": true}
	free := map[string]bool{"sim": true, "replay": true, "ollama": true, "exec": true, "hosted_vllm": true}
	for _, name := range provider.Names() {
		c := provider.CapabilitiesOf(name)
		if got, want := c.BaseURL, !noBaseURL[name]; got != want {
			t.Errorf("%s: BaseURL = %v, want %v", name, got, want)
		}
		if got, want := c.Free, free[name]; got != want {
			t.Errorf("%s: Free = %v, want %v", name, got, want)
		}
		if got, want := c.Stream != nil, name == "replay"; got != want {
			t.Errorf("%s: Stream set = %v, want %v", name, got, want)
		}
		if !provider.Registered(name + "/model") {
			t.Errorf("%s: not Registered", name)
		}
	}
	if provider.Registered("nosuchprovider/x") {
		t.Error("an unregistered name is Registered")
	}
}
