package provider

import (
	"io"

	"github.com/promptcanary/promptcanary"
)

// Streamer reads recorded answers as a Feed; see Capabilities.Stream.
type Streamer interface {
	// Feed reads r, named source in messages, batch by batch.
	Feed(r io.Reader, source string) Feed
}

// Feed is a file of recorded answers read batch by batch, as a provider
// that declares Capabilities.Stream opens it: the run engine judges each
// batch without holding the file.
type Feed interface {
	// NewBatch returns an empty batch for Next to fill.
	NewBatch() Batch
	// Next fills b, a batch from NewBatch, with the next lines, reusing
	// its memory, and returns io.EOF once the input is done and b is
	// empty; another error stops the stream.
	Next(b Batch) error
	// Offset returns how many bytes of the input were read so far; it
	// may be called from another goroutine.
	Offset() int64
}

// Batch is lines of a Feed.
type Batch interface {
	// Len returns the number of lines in the batch.
	Len() int
	// Line returns the line number of line i in the input.
	Line(i int) int
	// Decode decodes line i into an answer that the batch does not
	// share; a malformed line is an error that names its line.
	Decode(i int) (*promptcanary.Response, error)
}
