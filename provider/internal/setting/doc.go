// Package setting reads the settings of a provider (its block of
// canary.yaml, decoded from YAML) the same way for every client: typed
// getters for strings, environment variable names, headers and API roots,
// unknown keys reported with a did-you-mean hint, every problem joined so
// the user fixes them in one pass, and ${NAME} references to the
// environment. No value of a setting that may hold a secret is ever put
// into an error.
package setting
