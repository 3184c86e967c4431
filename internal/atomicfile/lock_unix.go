//go:build unix

package atomicfile

import (
	"errors"
	"os"
	"syscall"
)

// lock takes an exclusive advisory lock on f, released when f is closed
// or its process dies.
func lock(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
}

// unlocked reports whether no process holds a lock on path.
func unlocked(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return false, nil
	}
	if err != nil {
		return false, errNoLocks
	}
	return true, nil // the lock goes with f.Close
}
