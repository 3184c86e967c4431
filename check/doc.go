// Package check is the run → compare → decide workflow that the command
// line and the monitor share: it resolves which providers to call with which
// settings, runs the suite against them side by side, records what was
// measured before anything else can fail, finds the baseline to compare
// against across the baseline files and the run history, compares, and
// returns outcomes as values. It never prints and never exits: front ends
// render the outcomes and map them to exit codes or incidents.
package check
