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
	for side, results := range [2][]promptcanary.ProbeResult{baseline, current} {
		for i := range results {
			t.find(results[i].ProbeID).add(side, &results[i])
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
	n, passes [2]int     // results and passes: baseline, current
	sum       [2]float64 // score sums: baseline, current
	graded    bool       // a score strictly between 0 and 1 was seen
}

// add counts r on side 0 (baseline) or 1 (current).
func (a *acceptAcc) add(side int, r *promptcanary.ProbeResult) {
	a.n[side]++
	a.sum[side] += r.Score
	a.graded = a.graded || (r.Score > 0 && r.Score < 1)
	if r.Passed {
		a.passes[side]++
	}
}

// fine reports whether the probe is clearly fine: see AcceptEarly.
func (a *acceptAcc) fine() bool {
	if a.n[0] == 0 {
		return true // a pair new in this run cannot regress
	}
	if a.n[1] == 0 {
		return false
	}
	bRate, cRate := float64(a.passes[0])/float64(a.n[0]), float64(a.passes[1])/float64(a.n[1])
	bMean, cMean := a.sum[0]/float64(a.n[0]), a.sum[1]/float64(a.n[1])
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
