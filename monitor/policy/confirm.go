package policy

import (
	"strings"

	"github.com/promptcanary/promptcanary"
)

// Overlap says which flagged units of two reports count as the same
// finding.
type Overlap int

const (
	// OverlapSame matches a unit only with the unit of the same kind and
	// key (a suite unit still matches any unit).
	OverlapSame Overlap = iota
	// OverlapNested also matches units that contain one another: a pair
	// matches its probe and its probe's category, a probe its category.
	OverlapNested
)

// Confirmation is a rule deciding whether a confirmation run confirms the
// finding of the run before it.
type Confirmation struct {
	// Overlap says which units match.
	Overlap Overlap
}

// DefaultConfirmation is the rule Confirm applies: nested overlap. On the
// monitor benchmark (go run ./bench/drift -monitor -rules all) same-unit
// and nested overlap opened the same false incidents with 30-sample
// confirmations (0 to 2 in 21,600 drift-free hourly runs per world), and
// nested overlap confirmed a dropped pair as often or a little more often
// (up to 0.5 points): a drop flagged in one run as the pair and in the
// other only as its probe or category is one finding.
var DefaultConfirmation = Confirmation{Overlap: OverlapNested}

// Confirm reports the units of the confirmation report (second) that
// confirm the finding of the first report, by DefaultConfirmation: nil
// when the confirmation does not confirm.
func Confirm(first, second *promptcanary.DriftReport) []promptcanary.IncidentUnit {
	return DefaultConfirmation.Confirm(first, second)
}

// Confirm returns the flagged units of second (as Flagged lists them) that
// overlap a unit flagged in first, by the rule's Overlap; a suite unit
// flagged in either report overlaps every unit. Units whose test repeats
// another's (SameTestAs) match as follows: a broader unit repeating a
// narrower one's test (a suite unit with one varying pair) matches only
// through the unit it repeats, and a unit repeating one of its own kind
// (two pairs with identical results) matches as itself, so a finding is
// confirmed whichever of two identical tests a report lists first. The
// result is nil when nothing overlaps (no confirmation), never empty.
func (r Confirmation) Confirm(first, second *promptcanary.DriftReport) []promptcanary.IncidentUnit {
	a, b := flags(first), flags(second)
	if len(a) == 0 || len(b) == 0 {
		return nil
	}
	// A unit whose test repeats another's is confirmed with it.
	confirmed := map[string]bool{}
	for i := range b {
		if b[i].standIn() {
			continue
		}
		for j := range a {
			if !a[j].standIn() && r.overlaps(&a[j], &b[i]) {
				confirmed[b[i].id()] = true
				if b[i].rep != "" {
					confirmed[b[i].rep] = true
				}
				break
			}
		}
	}
	var out []promptcanary.IncidentUnit
	for i := range b {
		if b[i].rep == "" && confirmed[b[i].id()] {
			out = append(out, b[i].IncidentUnit)
		}
	}
	return out
}

// standIn reports whether f is a unit whose test repeats a narrower unit's
// (a suite or probe unit with one varying pair repeats that pair's test):
// it matches nothing itself, since its breadth is only apparent, and the
// unit it repeats matches in its stead. A unit repeating a unit of its own
// kind (two pairs or probes with identical results) is a finding of its
// own and matches as usual.
func (f *flag) standIn() bool {
	if f.rep == "" {
		return false
	}
	kind, _, _ := strings.Cut(f.rep, " ")
	return kindRank(kind) > kindRank(f.Unit)
}

// overlaps reports whether flagged units x and y are the same finding.
func (r Confirmation) overlaps(x, y *flag) bool {
	if x.Unit == promptcanary.UnitSuite || y.Unit == promptcanary.UnitSuite {
		return true
	}
	if x.Unit == y.Unit && x.Name == y.Name {
		return true
	}
	if r.Overlap != OverlapNested {
		return false
	}
	return contains(x, y) || contains(y, x)
}

// contains reports whether the broader unit outer contains unit inner: a
// probe contains its pairs, a category its probes and their pairs.
func contains(outer, inner *flag) bool {
	switch outer.Unit {
	case promptcanary.UnitProbe:
		return inner.Unit == promptcanary.UnitPair && inner.probe == outer.Name
	case promptcanary.UnitCategory:
		return (inner.Unit == promptcanary.UnitPair || inner.Unit == promptcanary.UnitProbe) && inner.category != "" && inner.category == outer.Name
	}
	return false
}

// ConfirmSamples returns the samples per prompt a confirmation run takes
// when the check's scheduled runs take samples: three times as many (at
// most promptcanary.MaxSamples), sampled adaptively like any compare, so
// prompts that look fine stop early and the flagged ones get the evidence
// a confirmation needs.
//
// A confirmation of the same size as the run it confirms costs the monitor
// power on drops that one run sees only sometimes. On the monitor benchmark
// (T07 world, 10 samples per scheduled run) a pair dropping 50 points
// opened an incident within two scheduled runs 23.5% of the time with
// 10-sample confirmations, less than the 29.2% at which one compare flags
// it; 39.5% with 20-sample and 43.8% with 30-sample confirmations, with
// no more false incidents. The cost is small: a confirmation runs only
// after a flag (about 0.4 to 0.7% of drift-free runs).
func ConfirmSamples(samples int) int {
	return min(max(3*samples, 1), promptcanary.MaxSamples)
}
