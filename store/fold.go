package store

import (
	"context"
	"sync"

	"github.com/promptcanary/promptcanary"
)

// Folder takes the probe results of one decoded run a chunk at a time, in
// their order, instead of the run holding them (see Folding). The chunk
// is reused once Fold returns. Grow tells it, before the first chunk, how
// many results a run of the compact layout holds.
type Folder interface {
	Grow(n int)
	Fold(chunk []promptcanary.ProbeResult) error
}

// ResponseFolder is a Folder that takes the run's responses as well, a
// chunk at a time, in their order: a decoder folding the run's probe
// results into it hands it the responses too and leaves the run's
// LLMResponses nil. The chunk is reused once FoldResponses returns.
type ResponseFolder interface {
	Folder
	FoldResponses(chunk []promptcanary.Response) error
}

// foldChunk is how many probe results (or responses) a decoder hands a
// Folder at once.
const foldChunk = 1024

// Folding makes the decoders it is given to (WithFolding,
// DecodeDocumentFolding) hand every run's probe results to a Folder of
// its own, made by New, and leave the run's ProbeResults nil, and its
// responses too when the Folder is a ResponseFolder: a caller
// that needs less than whole results (a compare of two statistical runs
// of a million results) never holds them all. Take returns a run's Folder.
type Folding struct {
	New func() Folder

	mu      sync.Mutex
	folders map[*promptcanary.Run]Folder
}

// Take returns the Folder that took the probe results of r, a run decoded
// with f, and forgets it; nil when r holds its results itself.
func (f *Folding) Take(r *promptcanary.Run) Folder {
	f.mu.Lock()
	defer f.mu.Unlock()
	fo := f.folders[r]
	delete(f.folders, r)
	return fo
}

func (f *Folding) keep(r *promptcanary.Run, fo Folder) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.folders == nil {
		f.folders = make(map[*promptcanary.Run]Folder)
	}
	f.folders[r] = fo
}

type foldingKey struct{}

// WithFolding returns ctx carrying f: the stores that decode a baseline
// with UnmarshalBaselineContext fold its probe results with f.
func WithFolding(ctx context.Context, f *Folding) context.Context {
	return context.WithValue(ctx, foldingKey{}, f)
}

func foldingOf(ctx context.Context) *Folding {
	f, _ := ctx.Value(foldingKey{}).(*Folding)
	return f
}

// UnmarshalBaselineContext is UnmarshalBaseline, folding the baseline's
// probe results when ctx carries a Folding (WithFolding).
func UnmarshalBaselineContext(ctx context.Context, data []byte) (*promptcanary.Baseline, error) {
	return unmarshalBaseline(data, foldingOf(ctx))
}

// DecodeDocumentFolding is DecodeDocument, folding the probe results of
// a run or a baseline with f (a side-by-side report's runs keep theirs).
func DecodeDocumentFolding(data []byte, f *Folding) (*Document, error) {
	return decodeDocument(data, f)
}

// fold hands the results of c to fo, a chunk at a time, with the checks
// of all.
func (c *compactResults) fold(fo Folder) error {
	tmpl, err := c.templates()
	if err != nil {
		return err
	}
	fo.Grow(c.count())
	chunk := make([]promptcanary.ProbeResult, 0, foldChunk)
	for i, row := range c.Rows {
		prompt, err := c.rowPrompt(i, row, len(tmpl))
		if err != nil {
			return err
		}
		for _, o := range row[2:] {
			pr := tmpl[o]
			pr.PromptID, pr.Sample = prompt, row[1]
			chunk = append(chunk, pr)
		}
		if len(chunk) >= foldChunk {
			if err := fo.Fold(chunk); err != nil {
				return err
			}
			chunk = chunk[:0]
		}
	}
	if len(chunk) > 0 {
		return fo.Fold(chunk)
	}
	return nil
}

// folder gives l a new Folder of f to fold into, and returns it; nil
// without f.
func (l *resultList) folder(f *Folding) Folder {
	if f == nil {
		return nil
	}
	l.fold = f.New()
	return l.fold
}

// folders gives w a new Folder of f for its probe results, and its
// responses when that is a ResponseFolder, and returns it; nil without f.
func (w *runJSON) folders(f *Folding) Folder {
	fo := w.ProbeResults.folder(f)
	w.LLMResponses.fold, _ = fo.(ResponseFolder)
	return fo
}
