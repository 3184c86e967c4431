package replay

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/promptcanary/promptcanary"
)

// Stream reads a replay file from r line by line and calls fn with each
// recorded response, in file order, keeping none of them: its memory is
// that of one line and of one counter per prompt, however long the file.
// It is the reader for files too large to hold, such as a million logged
// production answers; Parse holds the whole file and is the provider.
//
// Lines are read by Parse's rules, with two differences that keep memory
// flat: the first malformed line stops the stream with its error (Parse
// reports up to 20 at once), and a (prompt, sample) recorded twice is not
// detected. fn may keep the response it is given; an error from fn stops
// the stream and is returned as is.
func Stream(r io.Reader, name string, fn func(*promptcanary.Response) error) error {
	next := map[string]int{} // the implicit sample index of each prompt
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), MaxLineBytes)
	line, n := 0, 0
	for sc.Scan() {
		line++
		b := sc.Bytes()
		if line == 1 {
			b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
		}
		b = bytes.TrimSpace(b)
		if len(b) == 0 {
			continue
		}
		rec, err := parseLine(b)
		if err != nil {
			return fmt.Errorf("replay %q: line %d: %w", name, line, err)
		}
		sample := next[rec.promptID]
		if rec.sample >= 0 {
			sample = rec.sample
		}
		next[rec.promptID] = sample + 1
		rec.resp.PromptID = rec.promptID
		rec.resp.Sample = sample
		n++
		if err := fn(rec.resp); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return fmt.Errorf("replay %q: line %d: line longer than %d MiB", name, line+1, MaxLineBytes>>20)
		}
		return fmt.Errorf("replay %q: read: %w", name, err)
	}
	if n == 0 {
		return fmt.Errorf("replay %q: no recorded responses", name)
	}
	return nil
}
