package provider

import (
	"context"
	"errors"
	"strings"
	"testing"
)

type fakeEmbedder struct{ spec string }

func (f fakeEmbedder) Embed(_ context.Context, texts []string) (*Embeddings, error) {
	return &Embeddings{Vectors: make([][]float64, len(texts))}, nil
}

// TestOpenEmbedder: without a registered opener OpenEmbedder names the
// forgotten import; once one registers, it opens through it, and a second
// registration panics.
func TestOpenEmbedder(t *testing.T) {
	saved := openEmbedder
	t.Cleanup(func() { openEmbedder = saved })
	openEmbedder = nil
	_, err := OpenEmbedder("openai/text-embedding-3-small", Options{})
	if !errors.Is(err, errNoEmbedders) || !strings.Contains(err.Error(), "embedder openai/text-embedding-3-small: ") || !strings.Contains(err.Error(), "provider/embed") {
		t.Errorf("got %v, want the forgotten-import error", err)
	}
	RegisterEmbedders(func(spec string, _ Options) (Embedder, error) { return fakeEmbedder{spec}, nil })
	e, err := OpenEmbedder("x/y", Options{})
	if f, ok := e.(fakeEmbedder); err != nil || !ok || f.spec != "x/y" {
		t.Errorf("got %v, %v; want the registered opener's embedder for x/y", e, err)
	}
	defer func() {
		if recover() == nil {
			t.Error("a second RegisterEmbedders did not panic")
		}
	}()
	RegisterEmbedders(func(string, Options) (Embedder, error) { return nil, nil })
}
