package store

import "fmt"

// MaxIDLen is the longest run, snapshot or report id a store accepts.
const MaxIDLen = 128

// CheckID reports whether id can name a run, baseline or drift report:
// 1 to MaxIDLen ASCII letters, digits, '.', '-' or '_', not starting with
// '.'. Ids become file names in file stores, so every backend enforces the
// same rule. kind ("run", "snapshot", "report") names the id in the error.
func CheckID(kind, id string) error {
	if id == "" {
		return fmt.Errorf("empty %s id", kind)
	}
	bad := len(id) > MaxIDLen || id[0] == '.'
	for i := 0; i < len(id) && !bad; i++ {
		c := id[i]
		bad = !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '-' || c == '_')
	}
	if bad {
		return fmt.Errorf("invalid %s id %q: want 1 to %d letters, digits, '.', '-' or '_', not starting with '.'", kind, id, MaxIDLen)
	}
	return nil
}
