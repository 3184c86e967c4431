// Package similarity holds the built-in similarity probe: how close an
// answer is to reference answers to the same prompt, by chrF (character
// n-grams), token F1 (bag of words) or ROUGE-L (longest common word
// subsequence), all computed offline. Importing the package registers it
// with package probe.
//
// Its Deps mark it as one that compares answers with reference answers
// (probe.Deps.References). Package runner gives it its references
// (probe.Input.References): the answers of the baseline a run is compared against
// (runner.Plan.References), or, in a run without a baseline, the run's
// other answers to the same prompt (leave-one-out), so that a baseline
// saved from a run holds the spread of the model's own answers, against
// which a later run's closeness to them is compared. An answer with no
// reference (a single sample, or a baseline without answers) passes as
// skipped.
//
// Texts are compared whole: token F1 and chrF in time O(n log n), ROUGE-L
// in O(n·m/64) with the bit-vector LCS of Crochemore et al. (2001). Words
// are maximal runs of letters, digits and combining marks, lowercased; a
// script written without spaces (Chinese, Japanese, Thai) makes long
// "words", so chrF, the default, suits every language best. chrF compares
// the text without white space and keeps case, as Popović (2015) and
// sacreBLEU do.
package similarity
