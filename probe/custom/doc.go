// Package custom holds the probes a user writes without compiling Go: expr,
// a CEL expression over the response and the prompt, and exec, an external
// command in any language that judges a response it reads on stdin.
//
// Both register themselves with the probe registry from init (category
// custom) and check everything they can when a suite is loaded: expr
// compiles and type-checks its expression, exec finds its command and
// working directory. Both are safe for concurrent use and turn whatever goes
// wrong while judging (a runtime error, a command that crashes, hangs or
// answers off-format) into a failed result that says why, never a panic.
package custom
