package web

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/store"
)

// The JSON API, under /api/v1. Answers are JSON objects; errors are
// {"error": "…"} with the status. Writes (acknowledge, promote) need
// "Authorization: Bearer <admin token>".

// APICheck is one check and provider in GET /api/v1/checks.
type APICheck struct {
	Check    string    `json:"check"`
	Provider string    `json:"provider"`
	Suite    string    `json:"suite"`
	Schedule string    `json:"schedule"`
	State    State     `json:"state"`
	Running  bool      `json:"running"`
	Stale    bool      `json:"stale"`
	Next     time.Time `json:"next,omitzero"`
	Baseline string    `json:"baseline,omitempty"`
	// Control is the check's control arm, left out when it has none.
	Control string                  `json:"control,omitempty"`
	Last    *promptcanary.CheckRun  `json:"last"`
	Open    []promptcanary.Incident `json:"open"`
	// URL is the check's page.
	URL string `json:"url"`
	// Candidate is the check's upgrade gate candidate and Gate its latest
	// gate (GET /api/v1/gates lists them all); absent without candidate:.
	Candidate string                      `json:"candidate,omitempty"`
	Gate      *promptcanary.CandidateGate `json:"gate,omitempty"`
}

// APIIncident is GET /api/v1/incidents/{id}: an incident with its
// timeline and every notification attempt.
type APIIncident struct {
	Incident      *promptcanary.Incident             `json:"incident"`
	Events        []promptcanary.IncidentEvent       `json:"events"`
	Notifications []promptcanary.NotificationAttempt `json:"notifications"`
}

// The limits of GET /api/v1/runs and /api/v1/incidents.
const (
	apiDefaultLimit = 100
	apiMaxLimit     = 10000
)

// maxAPIBody bounds the body of an API write.
const maxAPIBody = 64 << 10

func (s *server) apiRoutes() {
	m := s.mux
	m.HandleFunc("/api/v1/checks", s.apiChecks)
	m.HandleFunc("/api/v1/checks/{check}/{provider}/promote", s.apiPromote)
	m.HandleFunc("/api/v1/runs", s.apiRuns)
	m.HandleFunc("/api/v1/runs/{id}", s.apiRun)
	m.HandleFunc("/api/v1/incidents", s.apiIncidents)
	m.HandleFunc("/api/v1/gates", s.apiGates)
	m.HandleFunc("/api/v1/incidents/{id}", s.apiIncident)
	m.HandleFunc("/api/v1/incidents/{id}/ack", s.apiAck)
	m.HandleFunc("/api/v1/", s.apiNotFound)
}

// writeJSON answers with v as JSON, written by the store's codec (it
// writes a score that is not a number as null).
func (s *server) writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := store.MarshalIndent(v)
	if err != nil {
		s.log.Error("dashboard: encode json", logErr, err)
		status, body = http.StatusInternalServerError, []byte(`{"error": "internal error: the answer could not be encoded"}`)
	}
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(append(body, '\n'))
}

// apiError answers with {"error": msg}.
func (s *server) apiError(w http.ResponseWriter, status int, msg string) {
	if status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="promptcanary"`)
	}
	s.writeJSON(w, status, map[string]string{"error": msg})
}

// allow answers 405 unless r's method is one of methods (GET allows HEAD).
func (s *server) allow(w http.ResponseWriter, r *http.Request, methods ...string) bool {
	for _, m := range methods {
		if r.Method == m || (m == http.MethodGet && r.Method == http.MethodHead) {
			return true
		}
	}
	w.Header().Set("Allow", strings.Join(methods, ", "))
	s.apiError(w, http.StatusMethodNotAllowed, "method "+r.Method+" is not allowed: use "+strings.Join(methods, " or "))
	return false
}

func (s *server) apiNotFound(w http.ResponseWriter, r *http.Request) {
	msg := "no API endpoint " + r.URL.Path
	if strings.HasPrefix(r.URL.Path, "/api/v1/checks/") {
		msg += `: the provider is one path segment, escape its "/" as %2F (/api/v1/checks/CHECK/openai%2Fgpt-4o-mini/promote)`
	}
	s.apiError(w, http.StatusNotFound, msg)
}

// listLimit checks a GET of a list: it reads ?limit=, apiDefaultLimit when
// absent; ok is false (and the request answered) when the method is not
// GET or the limit not a positive number.
func (s *server) listLimit(w http.ResponseWriter, r *http.Request) (int, bool) {
	if !s.allow(w, r, http.MethodGet) {
		return 0, false
	}
	q := r.URL.Query().Get("limit")
	if q == "" {
		return apiDefaultLimit, true
	}
	n, err := strconv.Atoi(q)
	if err != nil || n <= 0 {
		s.apiError(w, http.StatusBadRequest, "limit must be a positive number, got "+strconv.Quote(q))
		return 0, false
	}
	return min(n, apiMaxLimit), true
}

func (s *server) apiChecks(w http.ResponseWriter, r *http.Request) {
	if !s.allow(w, r, http.MethodGet) {
		return
	}
	out := []APICheck{}
	for _, st := range s.src.Statuses() {
		open := st.Open
		if open == nil {
			open = []promptcanary.Incident{}
		}
		out = append(out, APICheck{Check: st.Check, Provider: st.Provider, Suite: st.Suite, Schedule: st.Schedule,
			State: stateOf(&st), Running: st.Running, Stale: st.Stale, Next: st.Next, Baseline: st.Baseline, Control: st.Control,
			Last: st.Last, Open: open, URL: CheckPath(st.Check, st.Provider), Candidate: st.Candidate})
		if st.Candidate != "" {
			out[len(out)-1].Gate = s.latestGate(r, st.Check, st.Provider)
		}
	}
	s.writeJSON(w, http.StatusOK, map[string]any{"checks": out})
}

func (s *server) apiRuns(w http.ResponseWriter, r *http.Request) {
	limit, ok := s.listLimit(w, r)
	if !ok {
		return
	}
	q := r.URL.Query()
	runs, err := s.src.State().CheckRuns(r.Context(), q.Get("check"), q.Get("provider"), limit)
	writeList(s, w, r, "runs", "list check runs", runs, err)
}

// writeList answers the list items under key ([] rather than null when
// it is empty), or the store's error err, met doing what.
func writeList[T any](s *server, w http.ResponseWriter, r *http.Request, key, what string, items []T, err error) {
	if err != nil {
		s.apiError(w, http.StatusInternalServerError, s.storeFailed(r, what, err))
		return
	}
	if items == nil {
		items = []T{}
	}
	s.writeJSON(w, http.StatusOK, map[string]any{key: items})
}

func (s *server) apiRun(w http.ResponseWriter, r *http.Request) {
	if !s.allow(w, r, http.MethodGet) {
		return
	}
	run, err := s.src.History().Run(r.Context(), r.PathValue("id"))
	switch {
	case errors.Is(err, store.ErrAmbiguous):
		s.apiError(w, http.StatusBadRequest, "run id "+strconv.Quote(r.PathValue("id"))+" is ambiguous: give more of it")
		return
	case notFound(err):
		s.apiError(w, http.StatusNotFound, "no run "+strconv.Quote(r.PathValue("id")))
		return
	case err != nil:
		s.apiError(w, http.StatusInternalServerError, s.storeFailed(r, "load run", err))
		return
	}
	s.writeJSON(w, http.StatusOK, run)
}

func (s *server) apiIncidents(w http.ResponseWriter, r *http.Request) {
	limit, ok := s.listLimit(w, r)
	if !ok {
		return
	}
	q := r.URL.Query()
	open := q.Get("open")
	if open != "" && open != "0" && open != "1" && open != "true" && open != "false" {
		s.apiError(w, http.StatusBadRequest, "open must be 1 or 0, got "+strconv.Quote(open))
		return
	}
	incs, err := s.src.State().Incidents(r.Context(), store.IncidentFilter{Check: q.Get("check"), OpenOnly: open == "1" || open == "true", Limit: limit})
	writeList(s, w, r, "incidents", "list incidents", incs, err)
}

func (s *server) apiIncident(w http.ResponseWriter, r *http.Request) {
	if !s.allow(w, r, http.MethodGet) {
		return
	}
	ctx := r.Context()
	inc, err := s.src.State().Incident(ctx, r.PathValue("id"))
	if notFound(err) {
		s.apiError(w, http.StatusNotFound, "no incident "+strconv.Quote(r.PathValue("id")))
		return
	}
	if err != nil {
		s.apiError(w, http.StatusInternalServerError, s.storeFailed(r, "load incident", err))
		return
	}
	out := APIIncident{Incident: inc}
	if out.Events, err = s.src.State().IncidentEvents(ctx, inc.ID); err != nil {
		s.apiError(w, http.StatusInternalServerError, s.storeFailed(r, "list incident events", err))
		return
	}
	if out.Notifications, err = s.src.State().Notifications(ctx, inc.ID, 0); err != nil {
		s.apiError(w, http.StatusInternalServerError, s.storeFailed(r, "list notifications", err))
		return
	}
	if out.Events == nil {
		out.Events = []promptcanary.IncidentEvent{}
	}
	if out.Notifications == nil {
		out.Notifications = []promptcanary.NotificationAttempt{}
	}
	s.writeJSON(w, http.StatusOK, out)
}

// readBody decodes an optional JSON object body into v; it answers the
// request and returns false when the body is not one.
func (s *server) readBody(w http.ResponseWriter, r *http.Request, v any) bool {
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxAPIBody))
	if err != nil {
		s.apiError(w, http.StatusRequestEntityTooLarge, "the body is larger than 64 KiB")
		return false
	}
	if len(strings.TrimSpace(string(data))) == 0 {
		return true
	}
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		s.apiError(w, http.StatusBadRequest, "the body must be a JSON object: "+oneLine(err.Error()))
		return false
	}
	return true
}

// apiPost admits a POST to the API with a valid bearer token and reads
// its JSON body into v; otherwise it answers the error and returns false.
func (s *server) apiPost(w http.ResponseWriter, r *http.Request, v any) bool {
	if !s.allow(w, r, http.MethodPost) {
		return false
	}
	if status, msg := s.bearerStatus(r); status != 0 {
		s.apiError(w, status, msg)
		return false
	}
	return s.readBody(w, r, v)
}

// AckRequest is the optional body of POST /api/v1/incidents/{id}/ack.
type AckRequest struct {
	// By names who acknowledges, "api" when empty.
	By string `json:"by"`
}

func (s *server) apiAck(w http.ResponseWriter, r *http.Request) {
	var req AckRequest
	if !s.apiPost(w, r, &req) {
		return
	}
	by := cleanName(req.By)
	if by == "" {
		by = "api"
	}
	inc, status, msg := s.acknowledge(r.Context(), r, r.PathValue("id"), by)
	if status != http.StatusOK {
		s.apiError(w, status, msg)
		return
	}
	s.writeJSON(w, http.StatusOK, map[string]any{"incident": inc})
}

// PromoteRequest is the body of POST /api/v1/checks/{check}/{provider}/promote.
type PromoteRequest struct {
	RunID string `json:"run_id"`
}

// PromoteResponse is the answer of a promotion.
type PromoteResponse struct {
	Check    string `json:"check"`
	Provider string `json:"provider"`
	RunID    string `json:"run_id"`
	// Baseline is the check's baseline snapshot id after the promotion,
	// "" when the monitor does not say yet.
	Baseline string `json:"baseline,omitempty"`
}

func (s *server) apiPromote(w http.ResponseWriter, r *http.Request) {
	var req PromoteRequest
	if !s.apiPost(w, r, &req) {
		return
	}
	check, provider := r.PathValue("check"), r.PathValue("provider")
	runID, status, msg := s.promote(r.Context(), r, check, provider, req.RunID)
	if status != http.StatusOK {
		s.apiError(w, status, msg)
		return
	}
	out := PromoteResponse{Check: check, Provider: provider, RunID: runID}
	if st := s.findStatus(check, provider); st != nil {
		out.Baseline = st.Baseline
	}
	s.writeJSON(w, http.StatusOK, out)
}

// quote quotes a name for a message.
func quote(s string) string { return strconv.Quote(s) }

// queryEscape escapes a query parameter's value.
func queryEscape(s string) string { return url.QueryEscape(s) }
