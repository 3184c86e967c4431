package monitor

import (
	"context"
	"errors"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/monitor/delivery"
	"github.com/promptcanary/promptcanary/provider"
)

// namespace prefixes every metric of the monitor.
const namespace = "promptcanary"

// The values of the code label of promptcanary_provider_requests_total
// besides HTTP statuses: a call that succeeded is "ok" whatever the
// provider (a success carries no status code), a failure with an HTTP
// status is that status ("429", "500"), and a failure without one is
// "timeout" (the call's deadline passed), "canceled" (the run was stopped)
// or "error" (anything else: a refused connection, a command that exited
// non-zero, a missing recorded answer).
const (
	codeOK       = "ok"
	codeError    = "error"
	codeTimeout  = "timeout"
	codeCanceled = "canceled"
)

// Notification outcomes, the outcome label of
// promptcanary_notifications_total: one per delivery attempt.
const (
	notifyOK    = "ok"
	notifyError = "error"
)

// durationBuckets suit model calls: from a cached answer to a slow
// reasoning model.
var durationBuckets = []float64{0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 40, 80, 160}

// severities are the severities an open incident can have, for the
// incidents_open series.
var severities = []promptcanary.Severity{promptcanary.SeverityLow, promptcanary.SeverityMedium, promptcanary.SeverityHigh, promptcanary.SeverityCritical}

// kinds are the kinds of incident.
var kinds = []promptcanary.IncidentKind{promptcanary.IncidentDrift, promptcanary.IncidentUnmeasured, promptcanary.IncidentBudget, promptcanary.IncidentCandidate}

// outcomes are the outcomes of a check run.
var outcomes = []promptcanary.CheckOutcome{promptcanary.CheckClean, promptcanary.CheckDrift, promptcanary.CheckUnmeasured, promptcanary.CheckSkipped}

// metrics are the monitor's Prometheus series, on a registry of its own
// (no global state: several monitors in one test binary never collide).
type metrics struct {
	reg *prometheus.Registry

	up, passRatio, score, drift, lastSuccess *prometheus.GaugeVec
	runs                                     *prometheus.CounterVec
	requests                                 *prometheus.CounterVec
	duration                                 *prometheus.HistogramVec
	tokens                                   *prometheus.CounterVec
	cost                                     *prometheus.CounterVec
	incidentsOpen                            *prometheus.GaugeVec
	notifications                            *prometheus.CounterVec
	notificationsFailed                      *prometheus.CounterVec
	buildInfo                                *prometheus.GaugeVec
	storeUp                                  prometheus.Gauge
	// candidate are the series of the upgrade gates (candidate.go).
	candidate gateMetrics
}

// newMetrics registers every series. Names and labels are documented in
// the metrics table of docs/metrics.md; no label ever holds a run id, a text or an
// error.
func newMetrics(version string) *metrics {
	g := func(name, help string, labels ...string) *prometheus.GaugeVec {
		return prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: namespace, Name: name, Help: help}, labels)
	}
	c := func(name, help string, labels ...string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: name, Help: help}, labels)
	}
	m := &metrics{
		reg:         prometheus.NewRegistry(),
		up:          g("check_up", "1 when the check's last run was measured, 0 when it was not (or before the first run).", "check", "provider"),
		passRatio:   g("check_pass_ratio", "Pass rate of the check's last measured run over the pairs compared with the baseline.", "check", "provider"),
		score:       g("check_score", "Mean probe score of the check's last measured run.", "check", "provider"),
		drift:       g("check_drift", "1 while a drift incident is open for the check.", "check", "provider"),
		lastSuccess: g("check_last_success_timestamp_seconds", "Unix time of the check's last measured run, 0 before the first.", "check", "provider"),
		runs:        c("check_runs_total", "Scheduled runs of the check by outcome (clean, drift, unmeasured, skipped).", "check", "provider", "outcome"),
		requests:    c("provider_requests_total", "Provider calls by result: ok, an HTTP status, timeout, canceled or error.", "provider", "code"),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: namespace, Name: "provider_request_duration_seconds",
			Help: "Duration of provider calls (each attempt), successful or not.", Buckets: durationBuckets}, []string{"provider"}),
		tokens:        c("tokens_total", "Tokens reported by the provider, by kind (prompt, completion).", "provider", "kind"),
		cost:          c("cost_usd_total", "Estimated spend in US dollars, from the suite's prices or the built-in price table.", "provider"),
		incidentsOpen: g("incidents_open", "Open incidents by kind and severity.", "kind", "severity"),
		notifications: c("notifications_total", "Notification delivery attempts by notifier and outcome (ok, error).", "notifier", "outcome"),
		notificationsFailed: c("notifications_failed_total",
			"Notifications given up for good by notifier and reason (refused: not retryable, such as a revoked token; expired: failed for the whole repeat interval).",
			"notifier", "reason"),
		buildInfo: g("build_info", "Always 1; the version label names the running build.", "version"),
		storeUp: prometheus.NewGauge(prometheus.GaugeOpts{Namespace: namespace, Name: "store_up",
			Help: "1 while the store takes the monitor's writes, 0 while it cannot be written (read-only, full): no check runs then."}),
	}
	m.reg.MustRegister(m.up, m.passRatio, m.score, m.drift, m.lastSuccess, m.runs, m.requests, m.duration,
		m.tokens, m.cost, m.incidentsOpen, m.notifications, m.notificationsFailed, m.buildInfo, m.storeUp,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m.candidate.register(g, m.reg)
	m.buildInfo.WithLabelValues(version).Set(1)
	m.storeUp.Set(1)
	for _, k := range kinds {
		for _, s := range severities {
			m.incidentsOpen.WithLabelValues(string(k), string(s))
		}
	}
	return m
}

// initCheck creates the series of one check and provider, so that
// dashboards and alerts see them before the first run: at 0, but the pass
// ratio and score at NaN until a run measures them (a rate of nothing is
// no rate, and NaN trips no threshold alert).
func (m *metrics) initCheck(check, prov string) {
	for _, v := range []*prometheus.GaugeVec{m.up, m.drift, m.lastSuccess} {
		v.WithLabelValues(check, prov)
	}
	for _, v := range []*prometheus.GaugeVec{m.passRatio, m.score} {
		v.WithLabelValues(check, prov).Set(math.NaN())
	}
	for _, o := range outcomes {
		m.runs.WithLabelValues(check, prov, string(o))
	}
	m.requests.WithLabelValues(prov, codeOK)
	m.duration.WithLabelValues(prov)
	m.tokens.WithLabelValues(prov, "prompt")
	m.tokens.WithLabelValues(prov, "completion")
	m.cost.WithLabelValues(prov)
}

// initNotifier creates a notifier's series at 0.
func (m *metrics) initNotifier(name string) {
	m.notifications.WithLabelValues(name, notifyOK)
	m.notifications.WithLabelValues(name, notifyError)
	m.notificationsFailed.WithLabelValues(name, delivery.Refused)
	m.notificationsFailed.WithLabelValues(name, delivery.Expired)
}

// observeGiveUp counts one notification given up for reason.
func (m *metrics) observeGiveUp(notifier, reason string) {
	m.notificationsFailed.WithLabelValues(notifier, reason).Inc()
}

// observeRun records the outcome of one check run.
func (m *metrics) observeRun(cr *promptcanary.CheckRun) {
	m.runs.WithLabelValues(cr.Check, cr.Provider, string(cr.Outcome)).Inc()
	if cr.CostUSD > 0 {
		m.cost.WithLabelValues(cr.Provider).Add(cr.CostUSD)
	}
	switch cr.Outcome {
	case promptcanary.CheckClean, promptcanary.CheckDrift:
		m.up.WithLabelValues(cr.Check, cr.Provider).Set(1)
		m.passRatio.WithLabelValues(cr.Check, cr.Provider).Set(cr.PassRate)
		m.score.WithLabelValues(cr.Check, cr.Provider).Set(cr.Score)
		m.lastSuccess.WithLabelValues(cr.Check, cr.Provider).Set(float64(cr.FinishedAt.UnixNano()) / 1e9)
	case promptcanary.CheckUnmeasured:
		m.up.WithLabelValues(cr.Check, cr.Provider).Set(0)
	}
}

// restore sets the gauges of a check from its last runs in the store, so
// that a restart does not reset them to 0.
func (m *metrics) restore(last, lastMeasured *promptcanary.CheckRun) {
	if lastMeasured != nil {
		m.passRatio.WithLabelValues(lastMeasured.Check, lastMeasured.Provider).Set(lastMeasured.PassRate)
		m.score.WithLabelValues(lastMeasured.Check, lastMeasured.Provider).Set(lastMeasured.Score)
		m.lastSuccess.WithLabelValues(lastMeasured.Check, lastMeasured.Provider).Set(float64(lastMeasured.FinishedAt.UnixNano()) / 1e9)
	}
	if last != nil && last == lastMeasured {
		m.up.WithLabelValues(last.Check, last.Provider).Set(1)
	}
}

// setOpen replaces the incidents_open gauges and the check_drift flags
// with the current open incidents.
func (m *metrics) setOpen(open []promptcanary.Incident, checks [][2]string) {
	counts := map[[2]string]int{}
	drifting := map[[2]string]bool{}
	for _, inc := range open {
		counts[[2]string{string(inc.Kind), string(inc.Severity)}]++
		if inc.Kind == promptcanary.IncidentDrift {
			drifting[[2]string{inc.Check, inc.Provider}] = true
		}
	}
	for _, k := range kinds {
		for _, s := range severities {
			m.incidentsOpen.WithLabelValues(string(k), string(s)).Set(float64(counts[[2]string{string(k), string(s)}]))
		}
	}
	for _, c := range checks {
		v := 0.0
		if drifting[c] {
			v = 1
		}
		m.drift.WithLabelValues(c[0], c[1]).Set(v)
	}
}

// observeAttempt counts one notification attempt.
func (m *metrics) observeAttempt(a promptcanary.NotificationAttempt) {
	outcome := notifyError
	if a.OK {
		outcome = notifyOK
	}
	m.notifications.WithLabelValues(a.Notifier, outcome).Inc()
}

// handler serves the registry in the Prometheus exposition formats.
func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// instrumented counts, times and meters every call of one provider.
type instrumented struct {
	p     provider.Provider
	spec  string
	m     *metrics
	clock func() time.Time
}

var _ provider.Provider = (*instrumented)(nil)

// Generate makes the call and records it.
func (i *instrumented) Generate(ctx context.Context, req *provider.Request) (*promptcanary.Response, error) {
	start := i.clock()
	resp, err := i.p.Generate(ctx, req)
	i.m.duration.WithLabelValues(i.spec).Observe(max(i.clock().Sub(start).Seconds(), 0))
	i.m.requests.WithLabelValues(i.spec, callCode(ctx, err)).Inc()
	if err == nil && resp != nil {
		if resp.PromptTokens > 0 {
			i.m.tokens.WithLabelValues(i.spec, "prompt").Add(float64(resp.PromptTokens))
		}
		if resp.CompletionTokens > 0 {
			i.m.tokens.WithLabelValues(i.spec, "completion").Add(float64(resp.CompletionTokens))
		}
	}
	return resp, err
}

// callCode is the code label of a call's result (see codeOK).
func callCode(ctx context.Context, err error) string {
	var pe *provider.Error
	switch {
	case err == nil:
		return codeOK
	case errors.As(err, &pe) && pe.StatusCode > 0:
		return strconv.Itoa(pe.StatusCode)
	case errors.Is(err, context.DeadlineExceeded):
		return codeTimeout
	case errors.Is(err, context.Canceled) || ctx.Err() != nil:
		return codeCanceled
	}
	return codeError
}
