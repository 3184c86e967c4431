package storetest

import (
	"io"
	"testing"
)

// subtest is one test of a conformance suite over stores of type S.
type subtest[S any] struct {
	name string
	fn   func(t *testing.T, s S)
}

// runSubtests runs each of tests as a subtest on a new store from open,
// which it closes, when it is an io.Closer, as the subtest ends.
func runSubtests[S any](t *testing.T, open func(t *testing.T) S, tests []subtest[S]) {
	t.Helper()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := open(t)
			closeAtEnd(t, s)
			tc.fn(t, s)
		})
	}
}

// closeAtEnd closes s, when it is an io.Closer, as t ends, and fails t
// when that fails.
func closeAtEnd(t *testing.T, s any) {
	if c, ok := s.(io.Closer); ok {
		t.Cleanup(func() {
			if err := c.Close(); err != nil {
				t.Errorf("close: %v", err)
			}
		})
	}
}

// ids lists the id of each record of s, in order.
func ids[T any](s []T, id func(T) string) []string {
	out := make([]string, len(s))
	for i := range s {
		out[i] = id(s[i])
	}
	return out
}
