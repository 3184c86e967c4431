// Package promptcanary holds the shared vocabulary of PromptCanary: prompts,
// provider responses, probe results, runs, baselines and drift reports.
//
// It depends on the standard library only. Every other package of the
// module speaks in these types; the JSON field names are compatible with the
// files written by the original Python PromptCanary.
package promptcanary
