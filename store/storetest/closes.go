package storetest

import "github.com/promptcanary/promptcanary/store"

// Closes is a store that counts how often it is closed, for tests that
// check that whoever opens a store also closes it.
type Closes struct {
	store.Store
	// N is the number of calls to Close.
	N *int
}

// Close counts the call and closes the store.
func (c Closes) Close() error {
	*c.N++
	return c.Store.Close()
}
