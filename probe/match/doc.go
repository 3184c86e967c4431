// Package match holds the built-in text-matching probes: regex (RE2
// patterns that must and must not match) and contains, equals, starts_with
// and ends_with (a list of values, any or all of which must hold). Each has
// a not: form that inverts its verdict, and the details say so. Importing
// the package registers them with package probe.
//
// The probes are built for replaying many responses: values are lower-cased
// once when a probe is built, a case-insensitive comparison walks the
// response without copying it, and an evaluation allocates only its result.
//
// Scores follow one rule: when the check needs every value to hold (mode
// all) or none to hold (mode any with not), the score is the share of
// values that satisfy it; when one value decides (mode any, or mode all
// with not) the score is 1 or 0. A probe passes exactly when its score is 1.
package match
