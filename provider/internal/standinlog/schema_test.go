package standinlog

import (
	"reflect"
	"testing"
)

func TestRequired(t *testing.T) {
	schema := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"city":  map[string]any{"type": "string"},
			"pop":   map[string]any{"type": "integer"},
			"extra": map[string]any{"type": "string"},
		},
		"required": []any{"city", "pop", "missing"},
	}
	got := Required(schema, func(s map[string]any) any { return s["type"] })
	want := map[string]any{"city": "string", "pop": "integer", "missing": nil}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if got := Required(nil, nil); len(got) != 0 || got == nil {
		t.Errorf("got %#v for no schema, want an empty object", got)
	}
}
