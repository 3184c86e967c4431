// Package schema holds the json_schema_full probe: a response is validated
// against a complete JSON Schema (draft 2020-12 by default, draft 7 and the
// other drafts github.com/santhosh-tekuri/jsonschema/v6 knows when the
// schema's $schema names them), given inline in canary.yaml or in a file
// beside it.
//
// The schema is compiled once, when the suite loads: a schema that does not
// compile, a file that cannot be read and a $ref or $schema that would need
// the network are configuration errors. Nothing is ever fetched over the
// network; a $ref to another local file, resolved against the file that
// holds the $ref, is allowed.
//
// Every probe treats the response as untrusted input: it never panics on
// malformed content, and a compiled schema is safe for concurrent use.
package schema
