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
	type acc struct {
		bn, bp, cn, cp int
		bs, cs         float64
		graded         bool // a score strictly between 0 and 1 was seen
	}
	var small [16]acc
	var keys [16]string
	n := 0
	var big map[string]*acc
	find := func(id string) *acc {
		if big != nil {
			a := big[id]
			if a == nil {
				a = &acc{}
				big[id] = a
			}
			return a
		}
		for i := 0; i < n; i++ {
			if keys[i] == id {
				return &small[i]
			}
		}
		if n < len(small) {
			keys[n] = id
			n++
			return &small[n-1]
		}
		big = make(map[string]*acc, 2*n)
		for i := 0; i < n; i++ {
			big[keys[i]] = &small[i]
		}
		a := &acc{}
		big[id] = a
		return a
	}
	for i := range baseline {
		a := find(baseline[i].ProbeID)
		a.bn++
		a.bs += baseline[i].Score
		a.graded = a.graded || (baseline[i].Score > 0 && baseline[i].Score < 1)
		if baseline[i].Passed {
			a.bp++
		}
	}
	for i := range current {
		a := find(current[i].ProbeID)
		a.cn++
		a.cs += current[i].Score
		a.graded = a.graded || (current[i].Score > 0 && current[i].Score < 1)
		if current[i].Passed {
			a.cp++
		}
	}
	fine := func(a *acc) bool {
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
	if big != nil {
		for _, a := range big {
			if !fine(a) {
				return false
			}
		}
		return true
	}
	for i := 0; i < n; i++ {
		if !fine(&small[i]) {
			return false
		}
	}
	return true
}
