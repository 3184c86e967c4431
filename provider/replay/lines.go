package replay

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// lineReader reads the lines of a replay file by Parse's rules: a
// byte-order mark before the first is dropped, every line is trimmed and
// blank lines are skipped.
type lineReader struct {
	name string
	sc   *bufio.Scanner
	line int // the lines read so far, blank ones included
}

// newLineReader returns a lineReader of the replay file read from r; name
// is used in error messages.
func newLineReader(r io.Reader, name string) *lineReader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), MaxLineBytes)
	return &lineReader{name: name, sc: sc}
}

// next returns the next non-blank line, valid until the following call,
// and false at the end of the file or after a failed read (see err).
func (l *lineReader) next() ([]byte, bool) {
	for l.sc.Scan() {
		l.line++
		b := l.sc.Bytes()
		if l.line == 1 {
			b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
		}
		if b = bytes.TrimSpace(b); len(b) > 0 {
			return b, true
		}
	}
	return nil, false
}

// err is why next returned false: nil at the end of the file, else a line
// longer than MaxLineBytes or a failed read.
func (l *lineReader) err() error {
	err := l.sc.Err()
	switch {
	case err == nil:
		return nil
	case errors.Is(err, bufio.ErrTooLong):
		return fmt.Errorf("replay %q: line %d: line longer than %d MiB", l.name, l.line+1, MaxLineBytes>>20)
	default:
		return fmt.Errorf("replay %q: read: %w", l.name, err)
	}
}
