package setting

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
)

// Words name the types of decoded YAML values in error messages. Each
// provider keeps the words its messages have always used: see APIWords
// and YAMLWords.
type Words struct {
	// Null names a missing value; Map names a mapping.
	Null, Map string
	// Uint64 names an integer too large for int (YAML decodes one as
	// uint64); "" names it by its Go type.
	Uint64 string
}

var (
	// APIWords are the words of the anthropic, gemini and ollama clients:
	// "nothing", "a string", "a number", "a boolean", "a list", "a map".
	APIWords = Words{Null: "nothing", Map: "a map", Uint64: "a number"}
	// YAMLWords are the words of the http and exec providers: "null",
	// "a string", "a number", "a boolean", "a list", "a mapping".
	YAMLWords = Words{Null: "null", Map: "a mapping"}
)

// TypeName names the type of a decoded YAML value for an error message.
func (w Words) TypeName(v any) string {
	switch v.(type) {
	case nil:
		return w.Null
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case int, int64, float64:
		return "a number"
	case uint64:
		if w.Uint64 != "" {
			return w.Uint64
		}
	case []any:
		return "a list"
	case map[string]any:
		return w.Map
	}
	return fmt.Sprintf("%T", v)
}

// Scalar reads a YAML scalar (a string, number or boolean) as a string;
// anything else, null included, is the error "want a string, got …".
func (w Words) Scalar(v any) (string, error) {
	switch v := v.(type) {
	case string:
		return v, nil
	case int:
		return strconv.Itoa(v), nil
	case int64:
		return strconv.FormatInt(v, 10), nil
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64), nil
	case bool:
		return strconv.FormatBool(v), nil
	}
	return "", fmt.Errorf("want a string, got %s", w.TypeName(v))
}

// Keys returns the keys of m, sorted, so that problems are reported in a
// stable order.
func Keys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
