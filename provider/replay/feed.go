package replay

import (
	"io"

	"github.com/promptcanary/promptcanary/provider"
)

// streamer is the replay provider's Capabilities.Stream: a file read line
// by line by a Splitter.
type streamer struct{}

func (streamer) Feed(r io.Reader, source string) provider.Feed {
	return feed{NewSplitter(r, source)}
}

// feed is a Splitter as a provider.Feed.
type feed struct{ s *Splitter }

func (f feed) NewBatch() provider.Batch { return new(Batch) }

func (f feed) Next(b provider.Batch) error { return f.s.Next(b.(*Batch)) }

func (f feed) Offset() int64 { return f.s.Offset() }
