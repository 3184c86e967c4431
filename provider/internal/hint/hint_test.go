package hint

import (
	"errors"
	"io"
	"slices"
	"testing"
)

func TestError(t *testing.T) {
	err := error(New(io.EOF, "try again", "or not"))
	if got := err.Error(); got != "EOF" {
		t.Errorf("got message %q, want %q", got, "EOF")
	}
	if !errors.Is(err, io.EOF) {
		t.Error("got no io.EOF inside, want the wrapped error")
	}
	h, ok := errors.AsType[*Error](err)
	if !ok || !slices.Equal(h.Hints(), []string{"try again", "or not"}) {
		t.Errorf("got hints %v, want [try again or not]", h)
	}
}
