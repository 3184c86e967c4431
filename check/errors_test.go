package check

import "testing"

// A FieldError built outside the package, without its message writer,
// still words itself by the caller's names instead of panicking.
func TestFieldErrorBuiltByHand(t *testing.T) {
	e := &FieldError{Field: "samples", Value: "0"}
	if got, want := e.Error(), "samples 0 is invalid"; got != want {
		t.Errorf("Error: got %q, want %q", got, want)
	}
	msg, hints := e.Words(func(f string) string { return "--" + f })
	if msg != "--samples 0 is invalid" || hints != nil {
		t.Errorf("Words: got %q, %v, want %q and no hint", msg, hints, "--samples 0 is invalid")
	}
}
