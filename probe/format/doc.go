// Package format holds the built-in FORMAT probes: JSON validity, JSON keys
// and key order, response length, Markdown headers and keywords.
//
// Each probe registers itself with the probe registry from init, under the
// id that canary.yaml uses (json_validity, json_schema, json_key_order,
// response_length, markdown_headers, keyword_presence, expected_keywords).
// The exported types can also be built directly by Go code, for example
// format.JSONSchema{RequiredKeys: []string{"name"}}; their zero values follow
// the documented defaults unless a field's comment says otherwise.
//
// Every probe treats the response as untrusted input: it never panics on
// malformed content and reports what it found in Details and Metadata.
package format
