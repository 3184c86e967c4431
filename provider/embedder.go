package provider

import (
	"context"
	"errors"
	"fmt"
)

// MaxEmbedBatch is the most texts one Embedder call embeds; callers split
// longer lists.
const MaxEmbedBatch = 64

// Embedder turns texts into vectors. Implementations are safe for
// concurrent use.
type Embedder interface {
	// Embed returns one vector per text, in order, all of one dimension.
	Embed(ctx context.Context, texts []string) (*Embeddings, error)
}

// Embeddings is what one Embed call returned.
type Embeddings struct {
	Vectors [][]float64
	// Tokens is what the provider counted, 0 when it reported nothing.
	Tokens int
}

// openEmbedder is the registered opener of embedding models (see
// RegisterEmbedders), nil until one registers.
var openEmbedder func(spec string, opts Options) (Embedder, error)

// RegisterEmbedders makes the embeddings clients available to
// OpenEmbedder: open opens an embedding model spec ("name/model").
// provider/embed registers itself from init, so that the run engine opens
// embedding models without importing it. It panics on a nil open or when
// called twice.
func RegisterEmbedders(open func(spec string, opts Options) (Embedder, error)) {
	mu.Lock()
	defer mu.Unlock()
	if open == nil {
		panic("provider: RegisterEmbedders with nil opener")
	}
	if openEmbedder != nil {
		panic("provider: RegisterEmbedders called twice")
	}
	openEmbedder = open
}

// OpenEmbedder opens the embedding model spec ("name/model") with the
// registered embeddings clients. It makes no network call.
func OpenEmbedder(spec string, opts Options) (Embedder, error) {
	mu.RLock()
	open := openEmbedder
	mu.RUnlock()
	if open == nil {
		return nil, fmt.Errorf("embedder %s: %w", spec, errNoEmbedders)
	}
	return open(spec, opts)
}

// errNoEmbedders is OpenEmbedder's error when no embeddings client
// registered.
var errNoEmbedders = errors.New("no embeddings clients registered (forgotten import of provider/embed?)")
