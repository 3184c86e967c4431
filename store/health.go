package store

import "context"

// WriteChecker is a store that can tell, cheaply and without changing
// anything, whether it accepts writes right now: a database file made
// read-only, a read-only replica. Callers find it by type assertion. A
// store full to the last byte may still pass: only a real write tells.
type WriteChecker interface {
	// CheckWrite returns an error saying why the store cannot be written
	// now, nil when it can.
	CheckWrite(ctx context.Context) error
}
