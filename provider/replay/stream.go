package replay

import (
	"fmt"
	"io"
	"sync/atomic"

	"github.com/promptcanary/promptcanary"
)

// Stream reads a replay file from r line by line and calls fn with each
// recorded response, in file order, keeping none of them: its memory is
// that of one line and of one counter per prompt, however long the file.
// It reads files too large to hold on one goroutine; a Splitter hands
// their lines to several (a streamed run); Parse holds the whole file and
// is the provider.
//
// Lines are read by Parse's rules, with two differences that keep memory
// flat: the first malformed line stops the stream with its error (Parse
// reports up to 20 at once), and a (prompt, sample) recorded twice is not
// detected. fn may keep the response it is given; an error from fn stops
// the stream and is returned as is.
func Stream(r io.Reader, name string, fn func(*promptcanary.Response) error) error {
	next := map[string]int{} // the implicit sample index of each prompt
	lr := newLineReader(r, name)
	n := 0
	for b, ok := lr.next(); ok; b, ok = lr.next() {
		rec, err := parseLine(b)
		if err != nil {
			return fmt.Errorf("replay %q: line %d: %w", name, lr.line, err)
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
	if err := lr.err(); err != nil {
		return err
	}
	if n == 0 {
		return fmt.Errorf("replay %q: no recorded responses", name)
	}
	return nil
}

// Splitter reads a replay file as batches of raw lines, so that one
// goroutine reads the file and others decode its lines (Batch.Decode) on
// every core. Lines are cut by Parse's rules: a byte-order mark before
// the first is dropped, blank lines are skipped, every line is trimmed.
type Splitter struct {
	count *countingReader
	in    *lineReader
	lines int // the non-blank lines handed out
	err   error
}

// NewSplitter returns a Splitter of the replay file read from r; name is
// used in error messages.
func NewSplitter(r io.Reader, name string) *Splitter {
	c := &countingReader{r: r}
	return &Splitter{count: c, in: newLineReader(c, name)}
}

// Batch is lines of a replay file, copied out of the reader so that they
// stay valid while the Splitter reads on. A Batch is reused: Next
// overwrites it.
type Batch struct {
	name string
	buf  []byte
	ends []int // the end of each line in buf
	nums []int // the line number of each line
}

// batchBytes and batchLines bound a batch: large enough that handing it
// over costs nothing next to judging it, small enough to spread a file
// of few long lines over every core.
const (
	batchBytes = 256 << 10
	batchLines = 256
)

// Next fills b with the next lines of the file, and returns io.EOF once
// the file is read to its end and b holds no line. A line longer than
// MaxLineBytes or a failed read is an error naming the line; a file
// without a line is an error at its end.
func (s *Splitter) Next(b *Batch) error {
	b.name, b.buf, b.ends, b.nums = s.in.name, b.buf[:0], b.ends[:0], b.nums[:0]
	if s.err != nil {
		return s.err
	}
	for len(b.nums) < batchLines && len(b.buf) < batchBytes {
		t, ok := s.in.next()
		if !ok {
			s.err = s.end()
			break
		}
		s.lines++
		b.buf = append(b.buf, t...)
		b.ends = append(b.ends, len(b.buf))
		b.nums = append(b.nums, s.in.line)
	}
	if len(b.nums) > 0 {
		return nil
	}
	return s.err
}

// end is the error that ends the file: io.EOF, or what went wrong.
func (s *Splitter) end() error {
	if err := s.in.err(); err != nil {
		return err
	}
	if s.lines == 0 {
		return fmt.Errorf("replay %q: no recorded responses", s.in.name)
	}
	return io.EOF
}

// Offset returns how many bytes of the file were read so far.
func (s *Splitter) Offset() int64 { return s.count.n.Load() }

// Lines returns how many non-blank lines were handed out so far.
func (s *Splitter) Lines() int { return s.lines }

// Len returns the number of lines in b.
func (b *Batch) Len() int { return len(b.nums) }

// Line returns the line number in the file of line i of b.
func (b *Batch) Line(i int) int { return b.nums[i] }

// Decode decodes line i of b by Parse's rules, into a response that b
// does not share. Its Sample is the line's "sample", else 0: the implicit
// index of a line depends on those before it, which a line decoded on its
// own does not know. A malformed line is an error naming the file and the
// line, as Stream's.
func (b *Batch) Decode(i int) (*promptcanary.Response, error) {
	start := 0
	if i > 0 {
		start = b.ends[i-1]
	}
	rec, err := parseLine(b.buf[start:b.ends[i]])
	if err != nil {
		return nil, fmt.Errorf("replay %q: line %d: %w", b.name, b.nums[i], err)
	}
	rec.resp.PromptID = rec.promptID
	rec.resp.Sample = max(rec.sample, 0)
	return rec.resp, nil
}

// countingReader counts the bytes read through it, for Offset, which
// another goroutine may call.
type countingReader struct {
	r io.Reader
	n atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}
