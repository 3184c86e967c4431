//go:build !unix

package atomicfile

import "os"

func lock(*os.File) error { return errNoLocks }

func unlocked(string) (bool, error) { return false, errNoLocks }
