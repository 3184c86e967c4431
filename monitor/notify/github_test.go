package notify_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary/monitor/config"
	"github.com/promptcanary/promptcanary/monitor/notify"
)

const ghToken = "ghp_R8d2kQ7vX1mZ4bN6tY9wC3sF5hJ0lP2aE7uI"

// ghIssue is an issue of the fake GitHub.
type ghIssue struct {
	Number      int
	Title, Body string
	State       string
	StateReason string
	Labels      []string
	PullRequest bool
	Comments    []string
}

// fakeGitHub speaks the part of the GitHub REST API the notifier uses:
// list a repository's issues (filtered by state and labels, paginated with
// Link rel="next"), create an issue, comment on one, and update its state.
// It checks the authentication and API-version headers of every request.
type fakeGitHub struct {
	t        *testing.T
	srv      *httptest.Server
	pageSize int
	// fail, when set, may answer a request instead (ok true).
	fail func(r *http.Request) (code int, body string, h http.Header, ok bool)

	mu       sync.Mutex
	issues   []*ghIssue
	requests []string
}

func newFakeGitHub(t *testing.T) *fakeGitHub {
	g := &fakeGitHub{t: t, pageSize: 100}
	g.srv = httptest.NewServer(http.HandlerFunc(g.serve))
	t.Cleanup(g.srv.Close)
	return g
}

func (g *fakeGitHub) notifier(t *testing.T, labels ...string) notify.Notifier {
	return mustNew(t, config.Notifier{Name: "tracker", Type: "github", Repo: "org/app", Token: ghToken, Labels: labels, APIURL: g.srv.URL})
}

func (g *fakeGitHub) add(is ghIssue) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if is.State == "" {
		is.State = "open"
	}
	g.issues = append(g.issues, &is)
}

func (g *fakeGitHub) issue(n int) *ghIssue {
	for _, is := range g.issues {
		if is.Number == n {
			return is
		}
	}
	return nil
}

func (g *fakeGitHub) log() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.requests)
}

func (g *fakeGitHub) writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

func (g *fakeGitHub) serve(w http.ResponseWriter, r *http.Request) {
	t := g.t
	g.mu.Lock()
	defer g.mu.Unlock()
	g.requests = append(g.requests, r.Method+" "+r.URL.RequestURI())
	if got := r.Header.Get("Authorization"); got != "Bearer "+ghToken {
		g.writeJSON(w, http.StatusUnauthorized, map[string]string{"message": "Bad credentials", "documentation_url": "https://docs.github.com/rest", "status": "401"})
		return
	}
	if r.Header.Get("Accept") != "application/vnd.github+json" || r.Header.Get("X-GitHub-Api-Version") != "2022-11-28" || r.Header.Get("User-Agent") == "" {
		t.Errorf("%s %s: headers %v lack Accept, X-GitHub-Api-Version or User-Agent", r.Method, r.URL, r.Header)
	}
	if g.fail != nil {
		if code, body, h, ok := g.fail(r); ok {
			for k, vs := range h {
				w.Header()[k] = vs
			}
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			w.WriteHeader(code)
			fmt.Fprint(w, body)
			return
		}
	}
	rest, ok := strings.CutPrefix(r.URL.Path, "/repos/org/app/issues")
	if !ok {
		g.writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found", "documentation_url": "https://docs.github.com/rest"})
		return
	}
	parts := strings.Split(strings.Trim(rest, "/"), "/")
	switch {
	case rest == "" && r.Method == http.MethodGet:
		g.list(w, r)
	case rest == "" && r.Method == http.MethodPost:
		var in struct {
			Title  string   `json:"title"`
			Body   string   `json:"body"`
			Labels []string `json:"labels"`
		}
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.Title == "" {
			g.writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"message": "Validation Failed", "errors": []map[string]string{{"resource": "Issue", "field": "title", "code": "missing_field"}}})
			return
		}
		is := &ghIssue{Number: len(g.issues) + 100, Title: in.Title, Body: in.Body, State: "open", Labels: in.Labels}
		g.issues = append(g.issues, is)
		g.writeJSON(w, http.StatusCreated, map[string]any{"number": is.Number, "title": is.Title, "state": "open", "html_url": g.srv.URL + "/org/app/issues/" + strconv.Itoa(is.Number)})
	case len(parts) == 2 && parts[1] == "comments" && r.Method == http.MethodPost:
		n, _ := strconv.Atoi(parts[0])
		is := g.issue(n)
		var in struct {
			Body string `json:"body"`
		}
		if is == nil || json.NewDecoder(r.Body).Decode(&in) != nil || in.Body == "" {
			g.writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
			return
		}
		is.Comments = append(is.Comments, in.Body)
		g.writeJSON(w, http.StatusCreated, map[string]any{"id": 1000 + len(is.Comments), "body": in.Body})
	case len(parts) == 1 && r.Method == http.MethodPatch:
		n, _ := strconv.Atoi(parts[0])
		is := g.issue(n)
		var in map[string]string
		if is == nil || json.NewDecoder(r.Body).Decode(&in) != nil {
			g.writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
			return
		}
		if in["state"] != "closed" || in["state_reason"] != "completed" {
			t.Errorf("PATCH %v, want state closed, state_reason completed", in)
		}
		is.State, is.StateReason = in["state"], in["state_reason"]
		g.writeJSON(w, http.StatusOK, map[string]any{"number": n, "state": is.State, "state_reason": is.StateReason})
	default:
		g.writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
	}
}

// list answers GET /repos/org/app/issues like GitHub: pull requests
// included (with a pull_request key), newest first, Link rel="next".
func (g *fakeGitHub) list(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if q.Get("state") != "open" {
		g.t.Errorf("list with state=%q, want open", q.Get("state"))
	}
	var want []string
	if l := q.Get("labels"); l != "" {
		want = strings.Split(l, ",")
	}
	var match []map[string]any
	for i := len(g.issues) - 1; i >= 0; i-- {
		is := g.issues[i]
		if is.State != "open" {
			continue
		}
		all := true
		for _, l := range want {
			all = all && slices.Contains(is.Labels, l)
		}
		if !all {
			continue
		}
		v := map[string]any{"number": is.Number, "title": is.Title, "body": is.Body, "state": is.State}
		if is.PullRequest {
			v["pull_request"] = map[string]string{"url": "https://api.github.com/repos/org/app/pulls/" + strconv.Itoa(is.Number)}
		}
		match = append(match, v)
	}
	page, _ := strconv.Atoi(q.Get("page"))
	page = max(page, 1)
	from := min((page-1)*g.pageSize, len(match))
	to := min(from+g.pageSize, len(match))
	if to < len(match) {
		next := *r.URL
		nq := next.Query()
		nq.Set("page", strconv.Itoa(page+1))
		next.RawQuery = nq.Encode()
		w.Header().Set("Link", fmt.Sprintf(`<%s%s>; rel="next", <%s/repos/org/app/issues?page=99>; rel="last"`, g.srv.URL, next.RequestURI(), g.srv.URL))
	}
	out := match[from:to]
	if out == nil {
		out = []map[string]any{}
	}
	g.writeJSON(w, http.StatusOK, out)
}

// count returns how many requests of the log start with prefix.
func count(log []string, prefix string) int {
	n := 0
	for _, l := range log {
		if strings.HasPrefix(l, prefix) {
			n++
		}
	}
	return n
}

func TestGitHubLifecycle(t *testing.T) {
	g := newFakeGitHub(t)
	n := g.notifier(t, "llm-drift")
	ctx := context.Background()

	if code, err := n.Send(ctx, firing()); err != nil || code != http.StatusCreated {
		t.Fatalf("open: %d %v, want 201", code, err)
	}
	if len(g.issues) != 1 {
		t.Fatalf("got %d issues, want 1", len(g.issues))
	}
	is := g.issues[0]
	if is.Title != "[promptcanary] checkout-prod: probe json_validity fell from 84% to 51%" {
		t.Errorf("title %q", is.Title)
	}
	marker := notify.Marker(incident())
	if marker != "<!-- promptcanary:fingerprint=3f9a2c41d7e8 incident=0b7f3c1e-5d2a-4c4e-9f10-1a2b3c4d5e6f -->" {
		t.Errorf("marker %q", marker)
	}
	for _, want := range []string{marker, "- Severity: **high**", "| probe | `json_validity` | 84.0% | 51.0% | 0.0012 |", "[on the dashboard](http://127.0.0.1:9464/incidents/0b7f3c1e)"} {
		if !strings.Contains(is.Body, want) {
			t.Errorf("issue body lacks %q:\n%s", want, is.Body)
		}
	}
	if !slices.Equal(is.Labels, []string{"llm-drift"}) {
		t.Errorf("labels %v, want [llm-drift]", is.Labels)
	}

	up := firing()
	up.Event = "updated"
	up.Incident.Severity = "critical"
	if code, err := n.Send(ctx, up); err != nil || code != http.StatusCreated {
		t.Fatalf("update: %d %v", code, err)
	}
	if len(g.issues) != 1 || len(is.Comments) != 1 || !strings.HasPrefix(is.Comments[0], "**Updated**") || !strings.Contains(is.Comments[0], "**critical**") {
		t.Fatalf("after an update: %d issues, comments %q; want one issue with an update comment", len(g.issues), is.Comments)
	}

	if code, err := n.Send(ctx, resolved()); err != nil || code != http.StatusOK {
		t.Fatalf("resolve: %d %v, want 200", code, err)
	}
	if is.State != "closed" || is.StateReason != "completed" || len(is.Comments) != 2 || !strings.Contains(is.Comments[1], "**Resolved** at 2026-03-01T15:30:00Z after 2 clean runs") {
		t.Errorf("after the resolve: state %s (%s), comments %q", is.State, is.StateReason, is.Comments)
	}
	for _, l := range g.log() {
		if strings.HasPrefix(l, "GET ") && (!strings.Contains(l, "labels=llm-drift") || !strings.Contains(l, "per_page=100")) {
			t.Errorf("list request %q lacks the labels or per_page", l)
		}
	}
}

func TestGitHubRestartCommentsOnExistingIssue(t *testing.T) {
	g := newFakeGitHub(t)
	g.pageSize = 2
	marker := notify.Marker(incident())
	// Newest first: a pull request quoting the marker, then unrelated
	// issues, then the incident's issue on the third page.
	g.add(ghIssue{Number: 7, Title: "[promptcanary] checkout-prod: …", Body: "opened by a monitor before its restart\n\n" + marker})
	for i := range 4 {
		g.add(ghIssue{Number: 10 + i, Title: "unrelated", Body: "nothing"})
	}
	g.add(ghIssue{Number: 20, Title: "PR quoting the marker", Body: marker, PullRequest: true})

	// A fresh notifier, as after a restart, and an opened message retried.
	n := g.notifier(t)
	code, err := n.Send(context.Background(), firing())
	if err != nil || code != http.StatusCreated {
		t.Fatalf("Send = %d %v", code, err)
	}
	log := g.log()
	if c := count(log, "POST /repos/org/app/issues/7/comments"); c != 1 {
		t.Errorf("%d comments on #7, want 1: %v", c, log)
	}
	if slices.Contains(log, "POST /repos/org/app/issues") || len(g.issues) != 6 {
		t.Errorf("a new issue was opened: %v", log)
	}
	if c := count(log, "GET /repos/org/app/issues"); c != 3 {
		t.Errorf("%d list pages read, want 3 (Link rel=next followed): %v", c, log)
	}
	if len(g.issue(20).Comments) != 0 {
		t.Errorf("commented on the pull request")
	}
}

func TestGitHubSecondOpenAfterRestartDoesNotDuplicate(t *testing.T) {
	g := newFakeGitHub(t)
	if _, err := g.notifier(t, "llm-drift").Send(context.Background(), firing()); err != nil {
		t.Fatal(err)
	}
	// The monitor restarts and notifies the same incident again.
	if _, err := g.notifier(t, "llm-drift").Send(context.Background(), firing()); err != nil {
		t.Fatal(err)
	}
	if len(g.issues) != 1 || len(g.issues[0].Comments) != 1 {
		t.Errorf("%d issues, comments %q; want 1 issue with 1 comment", len(g.issues), g.issues[0].Comments)
	}

	// A later incident of the same check, provider and kind gets its own
	// issue: the marker names the incident too.
	later := firing()
	later.Incident.ID = "5e6f7a8b-later"
	if _, err := g.notifier(t, "llm-drift").Send(context.Background(), later); err != nil {
		t.Fatal(err)
	}
	if len(g.issues) != 2 || !strings.Contains(g.issues[1].Body, "incident=5e6f7a8b-later") {
		t.Errorf("a new incident did not open a new issue: %d issues", len(g.issues))
	}
}

func TestGitHubResolveWithoutIssue(t *testing.T) {
	g := newFakeGitHub(t)
	code, err := g.notifier(t).Send(context.Background(), resolved())
	if err != nil || code != http.StatusOK {
		t.Fatalf("Send = %d %v, want 200 <nil>", code, err)
	}
	if log := g.log(); len(log) != 1 || !strings.HasPrefix(log[0], "GET ") {
		t.Errorf("requests %v, want only the search", log)
	}
}

func TestGitHubResolveRetryDoesNotCommentTwice(t *testing.T) {
	g := newFakeGitHub(t)
	n := g.notifier(t)
	if _, err := n.Send(context.Background(), firing()); err != nil {
		t.Fatal(err)
	}
	patches := 0
	g.fail = func(r *http.Request) (int, string, http.Header, bool) {
		if r.Method == http.MethodPatch {
			patches++
			if patches == 1 {
				return http.StatusBadGateway, `{"message":"Server Error"}`, nil, true
			}
		}
		return 0, "", nil, false
	}
	var rec recorder
	deliver(t, &rec, rec.options(), []notify.Notifier{n}, resolved(), "tracker")
	attempts, _ := rec.got()
	if len(attempts) != 2 || attempts[0].Code != http.StatusBadGateway || !attempts[1].OK {
		t.Fatalf("attempts %+v, want a 502 then success", attempts)
	}
	is := g.issues[0]
	if is.State != "closed" || len(is.Comments) != 1 {
		t.Errorf("state %s, comments %q; want closed with one resolve comment", is.State, is.Comments)
	}
}

func TestGitHubErrors(t *testing.T) {
	reset := time.Now().Add(2 * time.Minute).Unix()
	tests := []struct {
		name      string
		code      int
		body      string
		header    http.Header
		want      string
		retryable bool
		after     [2]time.Duration // bounds of RetryAfter
	}{
		{"bad credentials", 401, `{"message":"Bad credentials","documentation_url":"https://docs.github.com/rest"}`, nil, "HTTP 401 Unauthorized: Bad credentials (check the token)", false, [2]time.Duration{}},
		{"no permission", 403, `{"message":"Resource not accessible by personal access token"}`, nil, "HTTP 403 Forbidden: Resource not accessible by personal access token (the token needs write access to the issues of org/app)", false, [2]time.Duration{}},
		{"primary rate limit", 403, `{"message":"API rate limit exceeded for user ID 1."}`, http.Header{"X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {strconv.FormatInt(reset, 10)}}, "(rate limited)", true, [2]time.Duration{100 * time.Second, 121 * time.Second}},
		{"secondary rate limit", 403, `{"message":"You have exceeded a secondary rate limit. Please wait a few minutes before you try again."}`, nil, "(rate limited)", true, [2]time.Duration{time.Minute, time.Minute}},
		{"too many requests", 429, `{"message":"slow down"}`, http.Header{"Retry-After": {"30"}}, "HTTP 429 Too Many Requests: slow down (rate limited)", true, [2]time.Duration{30 * time.Second, 30 * time.Second}},
		{"not found", 404, `{"message":"Not Found"}`, nil, "(repository org/app not found, or the token cannot see it)", false, [2]time.Duration{}},
		{"validation", 422, `{"message":"Validation Failed","errors":[{"resource":"Issue","field":"labels","code":"invalid"}]}`, nil, "HTTP 422 Unprocessable Entity: Validation Failed; Issue.labels invalid (GitHub rejected the request)", false, [2]time.Duration{}},
		{"server error", 503, `<html>unavailable</html>`, nil, "HTTP 503 Service Unavailable: <html>unavailable</html>", true, [2]time.Duration{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := newFakeGitHub(t)
			g.fail = func(*http.Request) (int, string, http.Header, bool) { return tc.code, tc.body, tc.header, true }
			code, err := g.notifier(t).Send(context.Background(), firing())
			if code != tc.code || err == nil {
				t.Fatalf("Send = %d %v, want %d and an error", code, err, tc.code)
			}
			if !strings.HasPrefix(err.Error(), "list github issues: ") || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q, want it to contain %q", err, tc.want)
			}
			var e *notify.Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T, want *notify.Error", err)
			}
			if e.Retryable != tc.retryable || e.RetryAfter < tc.after[0] || e.RetryAfter > tc.after[1] {
				t.Errorf("Retryable %v RetryAfter %v, want %v within %v", e.Retryable, e.RetryAfter, tc.retryable, tc.after)
			}
			noSecret(t, "error", err.Error(), ghToken)
		})
	}
}

func TestGitHubWrongTokenNeverShown(t *testing.T) {
	g := newFakeGitHub(t)
	// The server echoes what it got, as a careless proxy might.
	g.fail = func(r *http.Request) (int, string, http.Header, bool) {
		return http.StatusUnauthorized, `{"message":"Bad credentials: ` + r.Header.Get("Authorization") + `"}`, nil, true
	}
	_, err := g.notifier(t).Send(context.Background(), firing())
	if err == nil || !strings.Contains(err.Error(), "[REDACTED]") {
		t.Fatalf("error %v, want the echoed token redacted", err)
	}
	noSecret(t, "error", err.Error(), ghToken)
}

func TestGitHubRefusesNextPageOnAnotherHost(t *testing.T) {
	g := newFakeGitHub(t)
	g.fail = func(r *http.Request) (int, string, http.Header, bool) {
		if r.Method == http.MethodGet {
			return http.StatusOK, "[]", http.Header{"Link": {`<https://evil.example/repos/org/app/issues?page=2>; rel="next"`}}, true
		}
		return 0, "", nil, false
	}
	_, err := g.notifier(t).Send(context.Background(), firing())
	if err == nil || !strings.Contains(err.Error(), "another host") {
		t.Errorf("error %v, want the foreign link refused", err)
	}
	if len(g.issues) != 0 {
		t.Errorf("an issue was opened although the search did not finish")
	}
}

func TestGitHubEscapesUntrustedText(t *testing.T) {
	g := newFakeGitHub(t)
	m := firing()
	m.Incident.Summary = "ping @octocat <img src=x> [click](https://evil.example)"
	m.Incident.Units[0].Name = "a|b`c"
	if _, err := g.notifier(t).Send(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	body := g.issues[0].Body
	for _, bad := range []string{"@octocat", " <img", "[click](https://evil"} {
		if strings.Contains(body, bad) {
			t.Errorf("issue body holds unescaped %q:\n%s", bad, body)
		}
	}
	for _, want := range []string{"ping @\u200boctocat \\<img src=x\\> \\[click\\]\\(https://evil.example\\)", "| `a\\|b'c` |"} {
		if !strings.Contains(body, want) {
			t.Errorf("issue body lacks the escaped %q:\n%s", want, body)
		}
	}
}

func TestMarkerCannotBeBroken(t *testing.T) {
	inc := incident()
	inc.Fingerprint = "fp --> <b>x</b>"
	inc.ID = "id---end"
	m := notify.Marker(inc)
	inner := strings.TrimSuffix(strings.TrimPrefix(m, "<!--"), "-->")
	if strings.Contains(inner, "--") || strings.ContainsAny(inner, "<>") {
		t.Errorf("marker %q can end the comment early", m)
	}
	if m != "<!-- promptcanary:fingerprint=fp_-____b_x_/b_ incident=id-_-end -->" {
		t.Errorf("marker %q", m)
	}
}
