package drift

import "github.com/promptcanary/promptcanary"

// Acceptance margins of AcceptEarly: a pair is clearly fine when its current
// pass rate is at least the baseline's minus acceptRate and its mean score at
// least the baseline's minus acceptScore.
const (
	acceptRate  = 0.05
	acceptScore = 0.03
)

// AcceptEarly reports whether a run may stop sampling a prompt after a stage
// of Stages: baseline and current are all the results of that one prompt.
// It is true only when every baseline pair of the prompt has current samples
// and is clearly fine (current pass rate ≥ baseline − 0.05 and, for a probe
// with graded scores, mean score ≥ baseline − 0.03). Stopping early only ever accepts: a prompt that looks
// worse keeps sampling, so AcceptEarly never raises an alarm.
func AcceptEarly(baseline []promptcanary.ProbeResult, current []promptcanary.ProbeResult) bool {
	if len(baseline) == 0 || len(current) == 0 {
		return false
	}
	var t acceptTally
	for i := range baseline {
		a := t.find(baseline[i].ProbeID)
		a.bn++
		a.bs += baseline[i].Score
		a.graded = a.graded || (baseline[i].Score > 0 && baseline[i].Score < 1)
		if baseline[i].Passed {
			a.bp++
		}
	}
	for i := range current {
		a := t.find(current[i].ProbeID)
		a.cn++
		a.cs += current[i].Score
		a.graded = a.graded || (current[i].Score > 0 && current[i].Score < 1)
		if current[i].Passed {
			a.cp++
		}
	}
	if t.big != nil {
		for _, a := range t.big {
			if !a.fine() {
				return false
			}
		}
		return true
	}
	for i := 0; i < t.n; i++ {
		if !t.small[i].fine() {
			return false
		}
	}
	return true
}

// acceptAcc counts the results of one probe of a prompt on both sides.
type acceptAcc struct {
	bn, bp, cn, cp int
	bs, cs         float64
	graded         bool // a score strictly between 0 and 1 was seen
}

// fine reports whether the probe is clearly fine: see AcceptEarly.
func (a *acceptAcc) fine() bool {
	if a.bn == 0 {
		return true // a pair new in this run cannot regress
	}
	if a.cn == 0 {
		return false
	}
	bRate, cRate := float64(a.bp)/float64(a.bn), float64(a.cp)/float64(a.cn)
	bMean, cMean := a.bs/float64(a.bn), a.cs/float64(a.cn)
	if cRate < bRate-acceptRate-tolerance {
		return false
	}
	// A pass/fail probe's mean score is its pass rate: the score margin
	// applies to graded scores only, or it would override the rate's.
	return !a.graded || cMean >= bMean-acceptScore-tolerance
}

// acceptTally holds an acceptAcc per probe: the first 16 in an array
// searched in order, all of them in a map beyond that.
type acceptTally struct {
	small [16]acceptAcc
	keys  [16]string
	n     int
	big   map[string]*acceptAcc
}

// find returns the counts of probe id, new ones zero.
func (t *acceptTally) find(id string) *acceptAcc {
	if t.big != nil {
		a := t.big[id]
		if a == nil {
			a = &acceptAcc{}
			t.big[id] = a
		}
		return a
	}
	for i := 0; i < t.n; i++ {
		if t.keys[i] == id {
			return &t.small[i]
		}
	}
	if t.n < len(t.small) {
		t.keys[t.n] = id
		t.n++
		return &t.small[t.n-1]
	}
	t.big = make(map[string]*acceptAcc, 2*t.n)
	for i := 0; i < t.n; i++ {
		t.big[t.keys[i]] = &t.small[i]
	}
	a := &acceptAcc{}
	t.big[id] = a
	return a
}
