package schema

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

var decodeSeeds = []string{"", "   ", "Sure! {}", "{", `{"a": 1`, `{"a": 1} x`, "1 2", "[1,]", `"abc`, "\xff", "{} }", "nul",
	"```json\n{}\n```", `{"a":}`, "\t\n", "-", "1e", `{"a" 1}`, "[1] [2]", "[1]\n"}

// FuzzDecodeError checks decodeError against the validator's own decoder
// on every text that is not JSON.
func FuzzDecodeError(f *testing.F) {
	for _, s := range decodeSeeds {
		f.Add(s)
	}
	f.Fuzz(checkDecodeError)
}

func checkDecodeError(t *testing.T, s string) {
	t.Helper()
	if json.Valid([]byte(s)) {
		return
	}
	var v any
	err := json.Unmarshal([]byte(s), &v)
	_, want := jsonschema.UnmarshalJSON(strings.NewReader(s))
	if want == nil {
		t.Fatalf("UnmarshalJSON(%q): no error where json.Unmarshal has %v", s, err)
	}
	if got := decodeError(err, s); got == nil || got.Error() != want.Error() {
		t.Errorf("decodeError(%q): got %v, want %v", s, got, want)
	}
}
