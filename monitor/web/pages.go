package web

import (
	"bytes"
	"cmp"
	"context"
	"html/template"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/report"
	"github.com/promptcanary/promptcanary/store"
)

// How much history each page reads: summary rows only, so that a page
// costs the same with ten runs in the store as with ten thousand.
const (
	historyRuns     = 500 // check runs in a check's chart
	recentRuns      = 30  // check runs in a check's table
	checkIncidents  = 10  // incidents (with their events) on a check's page
	incidentsListed = 500 // incidents on the incidents page
	reportLookup    = 200 // drift reports searched for a run's report
	notifications   = 200 // notification attempts on an incident's page
)

// overviewRow is one check and provider on the overview.
type overviewRow struct {
	St       CheckStatus
	State    State
	URL      string
	Spark    sparkline
	LastURL  string
	Incident *promptcanary.Incident
	// MoreIncidents counts the other open incidents of the check.
	MoreIncidents int
	// HistoryErr is set when the check's runs could not be read.
	HistoryErr bool
}

// stateCount is one of the overview's summary cards.
type stateCount struct {
	State State
	N     int
}

type overviewView struct {
	Rows   []overviewRow
	Counts []stateCount
	Open   int
}

func (s *server) overview(w http.ResponseWriter, r *http.Request) {
	var v overviewView
	counts := map[State]int{}
	for _, st := range s.src.Statuses() {
		row := overviewRow{St: st, State: stateOf(&st), URL: CheckPath(st.Check, st.Provider)}
		runs, err := s.src.State().CheckRuns(r.Context(), st.Check, st.Provider, sparkRuns)
		if err != nil {
			s.storeFailed(r, "list check runs", err)
			row.HistoryErr = true
		}
		row.Spark = newSparkline(runs)
		if st.Last != nil {
			row.LastURL = checkRunURL(st.Last)
		}
		if inc := worstIncident(st.Open); inc != nil {
			row.Incident = inc
			row.MoreIncidents = len(st.Open) - 1
		}
		v.Open += len(st.Open)
		counts[row.State]++
		v.Rows = append(v.Rows, row)
	}
	for _, st := range []State{StateClean, StateDrift, StateUnmeasured, StateStale, StateNoBaseline, StateSkipped, StatePending} {
		if counts[st] > 0 || st == StateClean || st == StateDrift || st == StateUnmeasured {
			v.Counts = append(v.Counts, stateCount{State: st, N: counts[st]})
		}
	}
	s.render(w, r, http.StatusOK, "overview", "Checks", "checks", v)
}

// findStatus returns the status of check on provider, nil when the
// monitor has no such check.
func (s *server) findStatus(check, provider string) *CheckStatus {
	for _, st := range s.src.Statuses() {
		if st.Check == check && st.Provider == provider {
			return &st
		}
	}
	return nil
}

// timelineEntry is an incident with its events, on a check's page.
type timelineEntry struct {
	Incident promptcanary.Incident
	Events   []promptcanary.IncidentEvent
}

type checkView struct {
	St      CheckStatus
	Known   bool // the check is configured (not only in the history)
	State   State
	URL     string
	Chart   historyChart
	Heatmap heatmap
	Recent  []promptcanary.CheckRun
	// Total is how many check runs the chart shows (at most historyRuns).
	Total     int
	Timeline  []timelineEntry
	Incidents int // incidents of the check listed beyond the timeline
	// CanPromote is set when the visitor may promote a run.
	CanPromote bool
	CSRF       string
	APIRuns    string
	// Gate is the upgrade gate panel, nil for a check without candidate.
	Gate *gateView
}

func (s *server) checkPage(w http.ResponseWriter, r *http.Request) {
	check, provider := r.PathValue("check"), r.PathValue("provider")
	ctx := r.Context()
	st := s.findStatus(check, provider)
	runs, err := s.src.State().CheckRuns(ctx, check, provider, historyRuns)
	if err != nil {
		s.errorPage(w, r, http.StatusInternalServerError, "Store error", s.storeFailed(r, "list check runs", err))
		return
	}
	if st == nil && len(runs) == 0 {
		s.errorPage(w, r, http.StatusNotFound, "Check not found", "The monitor has no check "+quote(check)+" on provider "+quote(provider)+", and the store holds no run of it.")
		return
	}
	v := checkView{Known: st != nil, URL: CheckPath(check, provider),
		APIRuns: "/api/v1/runs?check=" + queryEscape(check) + "&provider=" + queryEscape(provider)}
	if st != nil {
		v.St = *st
	} else {
		v.St = CheckStatus{Check: check, Provider: provider, Suite: runs[0].Suite, Last: &runs[0]}
	}
	v.State = stateOf(&v.St)
	if v.St.Suite == "" && len(runs) > 0 {
		v.St.Suite = runs[0].Suite
	}

	incidents, err := s.src.State().Incidents(ctx, store.IncidentFilter{Check: check, Limit: 50})
	if err != nil {
		s.errorPage(w, r, http.StatusInternalServerError, "Store error", s.storeFailed(r, "list incidents", err))
		return
	}
	incidents = slices.DeleteFunc(incidents, func(i promptcanary.Incident) bool { return i.Provider != provider })
	for i, inc := range incidents {
		if i == checkIncidents {
			v.Incidents = len(incidents) - checkIncidents
			break
		}
		events, err := s.src.State().IncidentEvents(ctx, inc.ID)
		if err != nil {
			s.errorPage(w, r, http.StatusInternalServerError, "Store error", s.storeFailed(r, "list incident events", err))
			return
		}
		v.Timeline = append(v.Timeline, timelineEntry{Incident: inc, Events: events})
	}

	v.Chart = newHistoryChart(runs, s.baselineSizes(ctx, r, v.St.Suite, provider, runs), incidents, s.now())
	v.Total = len(runs)
	v.Recent = runs[:min(len(runs), recentRuns)]
	if v.St.Suite != "" {
		scores, err := s.src.History().ProbeScores(ctx, v.St.Suite, provider, heatRuns)
		if err != nil {
			s.errorPage(w, r, http.StatusInternalServerError, "Store error", s.storeFailed(r, "read probe scores", err))
			return
		}
		v.Heatmap = newHeatmap(scores, runs)
	}
	v.Gate = s.gateView(ctx, r, v.St)
	if sess := s.session(r); sess != nil && v.Known {
		v.CanPromote, v.CSRF = true, sess.CSRF
	}
	s.render(w, r, http.StatusOK, "check", check+" · "+provider, "checks", v)
}

// baselineSizes maps the snapshot ids the runs were compared against to
// the number of results of the baseline's run, the n of the band's Wilson
// interval. It reads summaries only, once per baseline (a stored baseline
// never changes); a baseline it cannot size gets no band.
func (s *server) baselineSizes(ctx context.Context, r *http.Request, suite, provider string, runs []promptcanary.CheckRun) map[string]int {
	want := map[string]bool{}
	sizes := map[string]int{}
	for i := range runs {
		id := runs[i].BaselineID
		if id == "" || want[id] {
			continue
		}
		if n, ok := s.baseSizes.Load(id); ok {
			sizes[id] = n.(int)
		} else {
			want[id] = true
		}
	}
	if len(want) == 0 || suite == "" {
		return sizes
	}
	infos, err := s.src.History().Baselines(ctx, suite)
	if err != nil {
		s.storeFailed(r, "list baselines", err)
		return sizes
	}
	runOf := map[string]string{} // run id -> snapshot id
	for _, b := range infos {
		if want[b.SnapshotID] {
			runOf[b.RunID] = b.SnapshotID
		}
	}
	if len(runOf) == 0 {
		return sizes
	}
	sums, err := s.src.History().Runs(ctx, store.RunFilter{Suite: suite, Model: provider, BaselinesOnly: true, Limit: 100})
	if err != nil {
		s.storeFailed(r, "list baseline runs", err)
		return sizes
	}
	for _, sum := range sums {
		if snap, ok := runOf[sum.RunID]; ok {
			sizes[snap] = sum.Results
			s.baseSizes.Store(snap, sum.Results)
		}
	}
	return sizes
}

type runView struct {
	Run    *promptcanary.Run
	Report *store.DriftSummary
	// Body is the report fragment: the drift report when there is one,
	// else the run's results.
	Body template.HTML
	// CheckRun is the scheduled run this run belongs to, nil when unknown;
	// Confirmation is set when this run is its confirmation run.
	CheckRun     *promptcanary.CheckRun
	Confirmation bool
	CheckURL     string
	// PassRate is the run's pass rate: over the pairs its report compared
	// with the baseline (Compared set, BasePassRate the baseline's), the
	// measure the check page and incidents show for a run; else over all
	// its results.
	PassRate     float64
	BasePassRate float64
	Compared     bool
	Results      int
	CanPromote   bool
	CSRF         string
	// Cut says which answers were cut to the run's bound (report.CutNote),
	// shown above a drift report; the run's own report says it itself.
	Cut string
}

// notLoaded answers the error page of a page whose record, the kind
// named by the path's {id}, did not load with err: not found, or a store
// error; it reports whether it answered (err is not nil).
func (s *server) notLoaded(w http.ResponseWriter, r *http.Request, kind string, err error) bool {
	switch {
	case err == nil:
		return false
	case notFound(err):
		title := strings.ToUpper(kind[:1]) + kind[1:] + " not found"
		s.errorPage(w, r, http.StatusNotFound, title, "The store holds no "+kind+" "+quote(r.PathValue("id"))+".")
	default:
		s.errorPage(w, r, http.StatusInternalServerError, "Store error", s.storeFailed(r, "load "+kind, err))
	}
	return true
}

func (s *server) runPage(w http.ResponseWriter, r *http.Request) {
	run, err := s.src.History().Run(r.Context(), r.PathValue("id"))
	if s.notLoaded(w, r, "run", err) {
		return
	}
	v := runView{Run: run, PassRate: run.PassRate(), Results: len(run.ProbeResults), Cut: report.CutNote(run.LLMResponses)}
	s.findCheckRun(r, run, &v)
	d := s.runDrift(r, run, &v)
	var body bytes.Buffer
	if d != nil {
		sum := store.SummarizeDrift(d)
		v.Report = &sum
		if d.Compared() > 0 {
			v.PassRate, v.BasePassRate = d.PassRates()
			v.Compared = true
		}
		err = report.DriftFragment(&body, d)
	} else {
		err = report.RunFragment(&body, run)
	}
	if err != nil {
		s.log.Error("dashboard: render report", logPath, r.URL.Path, logErr, err)
		s.errorPage(w, r, http.StatusInternalServerError, "Report error", "The run's report could not be rendered (see the monitor's log).")
		return
	}
	// The fragment is html/template output of the report package: its
	// data is escaped there.
	v.Body = template.HTML(body.String())
	s.render(w, r, http.StatusOK, "run", "Run "+shortID(run.RunID), "checks", v)
}

// findCheckRun sets v's check run: the scheduled run run belongs to, of
// a check on its suite and provider, if any.
func (s *server) findCheckRun(r *http.Request, run *promptcanary.Run, v *runView) {
	provider := run.Provider.ModelID
	for _, st := range s.src.Statuses() {
		if st.Provider != provider || (st.Suite != "" && st.Suite != run.SuiteName) {
			continue
		}
		crs, err := s.src.State().CheckRuns(r.Context(), st.Check, st.Provider, reportLookup)
		if err != nil {
			s.storeFailed(r, "list check runs", err)
			return
		}
		for i := range crs {
			if crs[i].RunID == run.RunID || crs[i].ConfirmRunID == run.RunID {
				v.CheckRun, v.Confirmation = &crs[i], crs[i].ConfirmRunID == run.RunID
				v.CheckURL = CheckPath(st.Check, st.Provider)
				if sess := s.session(r); sess != nil {
					v.CanPromote, v.CSRF = true, sess.CSRF
				}
				return
			}
		}
	}
}

// runDrift returns run's drift report: the one named (when it is this
// run's), the check run's, or the newest among the latest reports of the
// suite and model; nil for none.
func (s *server) runDrift(r *http.Request, run *promptcanary.Run, v *runView) *promptcanary.DriftReport {
	ctx := r.Context()
	reportID := r.URL.Query().Get("report")
	if reportID == "" && v.CheckRun != nil {
		reportID = v.CheckRun.ReportID
		if v.Confirmation {
			reportID = v.CheckRun.ConfirmReportID
		}
	}
	if reportID != "" {
		d, err := s.src.History().Drift(ctx, reportID)
		if err != nil && !notFound(err) {
			s.storeFailed(r, "load drift report", err)
		}
		if d != nil && d.CurrentRunID == run.RunID {
			return d
		}
	}
	sums, err := s.src.History().Drifts(ctx, run.SuiteName, run.Provider.ModelID, reportLookup)
	if err != nil {
		s.storeFailed(r, "list drift reports", err)
	}
	for i := range sums {
		if sums[i].CurrentRunID == run.RunID {
			d, err := s.src.History().Drift(ctx, sums[i].ReportID)
			if err != nil {
				s.storeFailed(r, "load drift report", err)
			}
			return d
		}
	}
	return nil
}

type incidentsView struct {
	Incidents []promptcanary.Incident
	Filter    string // open, resolved or all
	Check     string
	OpenN     int
	Limit     int
}

func (s *server) incidentsPage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	v := incidentsView{Filter: q.Get("state"), Check: q.Get("check"), Limit: incidentsListed}
	if v.Filter != "open" && v.Filter != "resolved" {
		v.Filter = "all"
	}
	all, err := s.src.State().Incidents(r.Context(), store.IncidentFilter{Check: v.Check, OpenOnly: v.Filter == "open", Limit: incidentsListed})
	if err != nil {
		s.errorPage(w, r, http.StatusInternalServerError, "Store error", s.storeFailed(r, "list incidents", err))
		return
	}
	for _, inc := range all {
		if inc.Open() {
			v.OpenN++
		}
		if v.Filter == "resolved" && inc.Open() {
			continue
		}
		v.Incidents = append(v.Incidents, inc)
	}
	sortIncidents(v.Incidents)
	s.render(w, r, http.StatusOK, "incidents", "Incidents", "incidents", v)
}

// sortIncidents puts open incidents first, the most severe first, then the
// newest.
func sortIncidents(incs []promptcanary.Incident) {
	slices.SortStableFunc(incs, func(a, b promptcanary.Incident) int {
		ao, bo := a.Open(), b.Open()
		if ao != bo {
			if ao {
				return -1
			}
			return 1
		}
		if ao {
			if c := cmp.Compare(b.Severity.Rank(), a.Severity.Rank()); c != 0 {
				return c
			}
		}
		return b.OpenedAt.Compare(a.OpenedAt)
	})
}

// deliveryLister is the part of store.Outbox the incident page reads.
type deliveryLister interface {
	Deliveries(ctx context.Context, incidentID string, limit int) ([]store.Delivery, error)
}

type incidentView struct {
	Incident      *promptcanary.Incident
	Events        []promptcanary.IncidentEvent
	Notifications []promptcanary.NotificationAttempt
	// Deliveries are the incident's notifications in the outbox, with
	// where each stands (pending, sent, failed and why); nil when the
	// store has no outbox.
	Deliveries []store.Delivery
	CheckURL   string
	Duration   time.Duration
	CanAck     bool
	CSRF       string
}

func (s *server) incidentPage(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	inc, err := s.src.State().Incident(ctx, r.PathValue("id"))
	if s.notLoaded(w, r, "incident", err) {
		return
	}
	// The units as every surface lists them, the broken pairs first
	// (incidents stored before kept the order of their report).
	inc.Units = promptcanary.SortUnits(inc.Units)
	v := incidentView{Incident: inc, CheckURL: CheckPath(inc.Check, inc.Provider)}
	if v.Events, err = s.src.State().IncidentEvents(ctx, inc.ID); err != nil {
		s.errorPage(w, r, http.StatusInternalServerError, "Store error", s.storeFailed(r, "list incident events", err))
		return
	}
	if v.Notifications, err = s.src.State().Notifications(ctx, inc.ID, notifications); err != nil {
		s.errorPage(w, r, http.StatusInternalServerError, "Store error", s.storeFailed(r, "list notifications", err))
		return
	}
	if box, ok := uncached(s.src.State()).(deliveryLister); ok {
		if v.Deliveries, err = box.Deliveries(ctx, inc.ID, notifications); err != nil {
			s.errorPage(w, r, http.StatusInternalServerError, "Store error", s.storeFailed(r, "list deliveries", err))
			return
		}
	}
	end := inc.ResolvedAt
	if end.IsZero() {
		end = s.now()
	}
	v.Duration = end.Sub(inc.OpenedAt)
	if sess := s.session(r); sess != nil && inc.Open() && inc.AcknowledgedAt.IsZero() {
		v.CanAck, v.CSRF = true, sess.CSRF
	}
	s.render(w, r, http.StatusOK, "incident", "Incident "+shortID(inc.ID), "incidents", v)
}

// ackForm acknowledges an incident from its page.
func (s *server) ackForm(w http.ResponseWriter, r *http.Request) {
	sess := s.formGate(w, r)
	if sess == nil {
		return
	}
	inc, status, msg := s.acknowledge(r.Context(), r, r.PathValue("id"), sess.Name)
	if status != http.StatusOK {
		s.errorPage(w, r, status, "Could not acknowledge", msg)
		return
	}
	http.Redirect(w, r, IncidentPath(inc.ID), http.StatusSeeOther)
}

// promoteForm promotes a run to the baseline of a check from its page.
func (s *server) promoteForm(w http.ResponseWriter, r *http.Request) {
	sess := s.formGate(w, r)
	if sess == nil {
		return
	}
	check, provider := r.PathValue("check"), r.PathValue("provider")
	_, status, msg := s.promote(r.Context(), r, check, provider, r.PostFormValue("run_id"))
	if status != http.StatusOK {
		s.errorPage(w, r, status, "Could not promote the run", msg)
		return
	}
	http.Redirect(w, r, CheckPath(check, provider), http.StatusSeeOther)
}

// acknowledge acknowledges incident id for by: the incident and 200, or
// the status and message of the failure.
func (s *server) acknowledge(ctx context.Context, r *http.Request, id, by string) (*promptcanary.Incident, int, string) {
	inc, err := s.src.State().Incident(ctx, id)
	if notFound(err) {
		return nil, http.StatusNotFound, "no incident " + quote(id)
	}
	if err != nil {
		return nil, http.StatusInternalServerError, s.storeFailed(r, "load incident", err)
	}
	if !inc.Open() {
		return inc, http.StatusConflict, "incident " + inc.ID + " is resolved: there is nothing to acknowledge"
	}
	if err := s.src.Acknowledge(ctx, inc.ID, by); err != nil {
		s.log.Error("dashboard: acknowledge", "incident", inc.ID, logErr, err)
		return inc, http.StatusInternalServerError, "acknowledge incident " + inc.ID + ": " + oneLine(err.Error())
	}
	if again, err := s.src.State().Incident(ctx, inc.ID); err == nil {
		inc = again
	}
	return inc, http.StatusOK, ""
}

// promote makes runID (or the run it is a prefix of) the baseline of
// check on provider: the run's full id and 200, or the status and message
// of the failure. The monitor refusing (a check pinned to its baseline) is
// a conflict.
func (s *server) promote(ctx context.Context, r *http.Request, check, provider, runID string) (string, int, string) {
	runID = strings.TrimSpace(runID)
	if runID == "" {
		return "", http.StatusBadRequest, "run_id is required"
	}
	st := s.findStatus(check, provider)
	if st == nil {
		return "", http.StatusNotFound, "the monitor has no check " + quote(check) + " on provider " + quote(provider)
	}
	run, err := s.src.History().Run(ctx, runID)
	if notFound(err) {
		return "", http.StatusNotFound, "no run " + quote(runID)
	}
	if err != nil {
		return "", http.StatusInternalServerError, s.storeFailed(r, "load run", err)
	}
	switch {
	case run.Provider.ModelID != provider || (st.Suite != "" && run.SuiteName != st.Suite):
		return "", http.StatusUnprocessableEntity, "run " + run.RunID + " is a run of suite " + quote(run.SuiteName) + " on " + quote(run.Provider.ModelID) +
			", not of check " + quote(check) + " (suite " + quote(st.Suite) + " on " + quote(provider) + ")"
	case !run.Measured():
		return "", http.StatusUnprocessableEntity, "run " + run.RunID + " measured nothing: it cannot be a baseline"
	case run.Interrupted:
		return "", http.StatusUnprocessableEntity, "run " + run.RunID + " was interrupted: its results are incomplete"
	}
	if err := s.src.Promote(ctx, check, provider, run.RunID); err != nil {
		s.log.Error("dashboard: promote", "check", check, "run", run.RunID, logErr, err)
		return "", http.StatusConflict, "the monitor refused: " + oneLine(err.Error())
	}
	return run.RunID, http.StatusOK, ""
}
