package httpc

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// MaxRetryAfter caps the delay a Retry-After header may ask for; the
// caller's retry budget decides whether to wait that long.
const MaxRetryAfter = 24 * time.Hour

// RetryAfter is the delay a rate-limited answer (a 429) asks for: the
// retry-after-ms or Retry-After header when there is one (see
// ExplicitRetryAfter), else the time until the provider's rate-limit
// window resets, from OpenAI's x-ratelimit-reset-requests and
// x-ratelimit-reset-tokens (durations such as "1s", "6m0s", "20ms",
// https://platform.openai.com/docs/guides/rate-limits) or Anthropic's
// anthropic-ratelimit-*-reset (RFC 3339 times,
// https://docs.anthropic.com/en/api/rate-limits). It returns 0 when none
// is present or parsable and caps the delay at MaxRetryAfter. The delay is
// what the server asked for: the run engine's retry budget decides
// whether to wait that long, and names the delay when it will not.
func RetryAfter(h http.Header, now time.Time) time.Duration {
	if d := ExplicitRetryAfter(h, now); d > 0 {
		return d
	}
	return ResetAfter(h, now)
}

// ExplicitRetryAfter parses the retry-after-ms header some APIs send
// (OpenAI's and Anthropic's), else Retry-After (see RetryAfterHeader). It
// returns 0 when both are absent or unparsable, and caps the delay at
// MaxRetryAfter.
func ExplicitRetryAfter(h http.Header, now time.Time) time.Duration {
	if ms := h.Get("Retry-After-Ms"); ms != "" {
		if v, err := strconv.ParseFloat(ms, 64); err == nil && v > 0 {
			if d := capped(v, time.Millisecond); d > 0 {
				return min(d, MaxRetryAfter)
			}
		}
	}
	return RetryAfterHeader(h, now)
}

// RetryAfterHeader parses Retry-After alone: seconds or an HTTP date
// (RFC 9110 section 10.2.3). It returns 0 when it is absent, unparsable,
// not positive or past, and caps the delay at MaxRetryAfter. Notifiers
// read this one: the services they call send no other.
func RetryAfterHeader(h http.Header, now time.Time) time.Duration {
	var d time.Duration
	if s := strings.TrimSpace(h.Get("Retry-After")); s != "" {
		if v, err := strconv.ParseFloat(s, 64); err == nil && v > 0 {
			d = capped(v, time.Second)
		} else if t, err := http.ParseTime(s); err == nil && t.After(now) {
			d = t.Sub(now)
		}
	}
	return min(d, MaxRetryAfter)
}

// capped converts v units to a duration, capped at MaxRetryAfter before
// the conversion so that no value overflows time.Duration.
func capped(v float64, unit time.Duration) time.Duration {
	if v >= MaxRetryAfter.Seconds()*float64(time.Second/unit) {
		return MaxRetryAfter
	}
	return time.Duration(v * float64(unit))
}

// resetHeaders pairs each rate-limit window's reset header with the header
// that counts what is left of it: OpenAI's, then Anthropic's.
var resetHeaders = [][2]string{
	{"X-Ratelimit-Reset-Requests", "X-Ratelimit-Remaining-Requests"},
	{"X-Ratelimit-Reset-Tokens", "X-Ratelimit-Remaining-Tokens"},
	{"Anthropic-Ratelimit-Requests-Reset", "Anthropic-Ratelimit-Requests-Remaining"},
	{"Anthropic-Ratelimit-Tokens-Reset", "Anthropic-Ratelimit-Tokens-Remaining"},
	{"Anthropic-Ratelimit-Input-Tokens-Reset", "Anthropic-Ratelimit-Input-Tokens-Remaining"},
	{"Anthropic-Ratelimit-Output-Tokens-Reset", "Anthropic-Ratelimit-Output-Tokens-Remaining"},
}

// ResetAfter is the wait until the rate-limit windows that turned a call
// away reset, from the x-ratelimit-reset-* and anthropic-ratelimit-*-reset
// headers. The windows whose remaining header says 0 are the exhausted
// ones, and the wait is until the last of them resets; when no remaining
// header names one (a token window can refuse a call with tokens left),
// it is until the first window resets, the soonest the provider said
// anything frees up. It returns 0 when no reset header parses, and caps
// the delay at MaxRetryAfter. These headers come with every answer; only
// a rate-limited one should be read for a delay.
func ResetAfter(h http.Header, now time.Time) time.Duration {
	var exhausted, soonest time.Duration
	for _, hh := range resetHeaders {
		d := resetIn(h.Get(hh[0]), now)
		if d <= 0 {
			continue
		}
		if strings.TrimSpace(h.Get(hh[1])) == "0" {
			exhausted = max(exhausted, d)
		}
		if soonest == 0 || d < soonest {
			soonest = d
		}
	}
	if exhausted > 0 {
		return exhausted
	}
	return soonest
}

// resetIn parses one reset header: a Go-style duration ("6m0s", "20ms",
// "1m30.5s", OpenAI's form) or an RFC 3339 time (Anthropic's), 0 when
// empty, unparsable or past.
func resetIn(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if d, err := time.ParseDuration(v); err == nil {
		return min(max(d, 0), MaxRetryAfter)
	}
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil && t.After(now) {
		return min(t.Sub(now), MaxRetryAfter)
	}
	return 0
}
