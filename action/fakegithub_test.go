package action

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
)

// fakeGitHub stands in for the GitHub REST API's issue comments, as
// strict as the real one for what the action sends:
// https://docs.github.com/en/rest/issues/comments
//
//   - every request needs Authorization "Bearer TOKEN" (or "token TOKEN"),
//     else 401 Bad credentials
//     (https://docs.github.com/en/rest/authentication/authenticating-to-the-rest-api);
//   - a User-Agent, else 403
//     (https://docs.github.com/en/rest/using-the-rest-api/getting-started-with-the-rest-api#user-agent);
//   - X-GitHub-Api-Version, when sent, must be a supported version, else 400
//     (https://docs.github.com/en/rest/about-the-rest-api/api-versions);
//   - another repository, an unknown issue or comment: 404 Not Found;
//   - list: per_page 1..100 (default 30), page from 1, Link rel="next",
//     "last", "first", "prev" with absolute URLs
//     (https://docs.github.com/en/rest/using-the-rest-api/using-pagination-in-the-rest-api);
//   - create and update: a JSON object with a string "body" (400 Problems
//     parsing JSON, 422 when body is missing or over 65536 characters);
//     create answers 201 with Location, update 200.
type fakeGitHub struct {
	t     *testing.T
	token string
	repo  string
	srv   *httptest.Server

	mu       sync.Mutex
	nextID   int64
	issues   map[int][]*fakeComment
	calls    []string
	readOnly bool
}

type fakeComment struct {
	ID      int64
	Issue   int
	Body    string
	User    string
	Created time.Time
	Updated time.Time
}

const apiVersion = "2022-11-28"

// maxCommentChars is GitHub's limit of a comment body.
const maxCommentChars = 65536

// wantNoCalls fails the test if the API was called at all; when says in
// which case no call was expected.
func (g *fakeGitHub) wantNoCalls(t *testing.T, when string) {
	t.Helper()
	g.mu.Lock()
	defer g.mu.Unlock()
	if n := len(g.calls); n != 0 {
		t.Errorf("%d calls to the GitHub API %s", n, when)
	}
}

func newFakeGitHub(t *testing.T, repo, token string, issues ...int) *fakeGitHub {
	g := &fakeGitHub{t: t, token: token, repo: repo, nextID: 1000, issues: map[int][]*fakeComment{}}
	for _, n := range issues {
		g.issues[n] = nil
	}
	g.srv = httptest.NewServer(http.HandlerFunc(g.serve))
	t.Cleanup(g.srv.Close)
	return g
}

// add puts a comment on issue n as if someone else had written it.
func (g *fakeGitHub) add(n int, user, body string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.nextID++
	now := time.Date(2026, 12, 1, 0, 0, int(g.nextID%60), 0, time.UTC)
	g.issues[n] = append(g.issues[n], &fakeComment{ID: g.nextID, Issue: n, Body: body, User: user, Created: now, Updated: now})
}

// comments returns the comments of issue n whose body holds s.
func (g *fakeGitHub) comments(n int, s string) []fakeComment {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []fakeComment
	for _, c := range g.issues[n] {
		if strings.Contains(c.Body, s) {
			out = append(out, *c)
		}
	}
	return out
}

// count returns how many requests of method were made.
func (g *fakeGitHub) count(method string) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	n := 0
	for _, c := range g.calls {
		if strings.HasPrefix(c, method+" ") {
			n++
		}
	}
	return n
}

func (g *fakeGitHub) fail(w http.ResponseWriter, code int, msg string, errs ...map[string]string) {
	v := map[string]any{"message": msg, "documentation_url": "https://docs.github.com/rest", "status": strconv.Itoa(code)}
	if len(errs) > 0 {
		v["errors"] = errs
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

func (g *fakeGitHub) serve(w http.ResponseWriter, r *http.Request) {
	g.mu.Lock()
	g.calls = append(g.calls, r.Method+" "+r.URL.RequestURI())
	g.mu.Unlock()
	auth := r.Header.Get("Authorization")
	if auth != "Bearer "+g.token && auth != "token "+g.token {
		g.fail(w, http.StatusUnauthorized, "Bad credentials")
		return
	}
	if r.Header.Get("User-Agent") == "" {
		g.fail(w, http.StatusForbidden, "Request forbidden by administrative rules. Please make sure your request has a User-Agent header")
		return
	}
	if v := r.Header.Get("X-GitHub-Api-Version"); v != "" && v != apiVersion {
		g.fail(w, http.StatusBadRequest, "API version "+v+" is not supported.")
		return
	}
	rest, ok := strings.CutPrefix(r.URL.Path, "/repos/"+g.repo+"/issues/")
	if !ok {
		g.fail(w, http.StatusNotFound, "Not Found")
		return
	}
	parts := strings.Split(rest, "/")
	switch {
	case len(parts) == 2 && parts[1] == "comments" && r.Method == http.MethodGet:
		g.list(w, r, parts[0])
	case len(parts) == 2 && parts[1] == "comments" && r.Method == http.MethodPost:
		g.create(w, r, parts[0])
	case len(parts) == 2 && parts[0] == "comments" && r.Method == http.MethodPatch:
		g.update(w, r, parts[1])
	default:
		g.fail(w, http.StatusNotFound, "Not Found")
	}
}

// issue returns issue number s, false (after a 404) when there is none.
func (g *fakeGitHub) issue(w http.ResponseWriter, s string) (int, bool) {
	n, err := strconv.Atoi(s)
	g.mu.Lock()
	_, ok := g.issues[n]
	g.mu.Unlock()
	if err != nil || !ok {
		g.fail(w, http.StatusNotFound, "Not Found")
		return 0, false
	}
	return n, true
}

func (g *fakeGitHub) list(w http.ResponseWriter, r *http.Request, s string) {
	n, ok := g.issue(w, s)
	if !ok {
		return
	}
	q := r.URL.Query()
	perPage, page := 30, 1
	if v := q.Get("per_page"); v != "" {
		perPage, _ = strconv.Atoi(v)
		perPage = min(max(perPage, 1), 100)
	}
	if v := q.Get("page"); v != "" {
		page, _ = strconv.Atoi(v)
		page = max(page, 1)
	}
	g.mu.Lock()
	all := g.issues[n]
	last := max((len(all)+perPage-1)/perPage, 1)
	var items []map[string]any
	for i := (page - 1) * perPage; i < len(all) && i < page*perPage; i++ {
		items = append(items, g.json(all[i]))
	}
	g.mu.Unlock()
	if items == nil {
		items = []map[string]any{}
	}
	link := func(p int, rel string) string {
		return fmt.Sprintf(`<%s/repos/%s/issues/%d/comments?per_page=%d&page=%d>; rel="%s"`, g.srv.URL, g.repo, n, perPage, p, rel)
	}
	var links []string
	if page > 1 {
		links = append(links, link(page-1, "prev"))
	}
	if page < last {
		links = append(links, link(page+1, "next"), link(last, "last"))
	}
	if page > 1 {
		links = append(links, link(1, "first"))
	}
	if len(links) > 0 {
		w.Header().Set("Link", strings.Join(links, ", "))
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	_ = json.NewEncoder(w).Encode(items)
}

// body decodes and validates a create or update request's JSON.
func (g *fakeGitHub) body(w http.ResponseWriter, r *http.Request) (string, bool) {
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(http.MaxBytesReader(w, r.Body, 1<<20)); err != nil {
		g.fail(w, http.StatusBadRequest, "Problems parsing JSON")
		return "", false
	}
	var v map[string]json.RawMessage
	if err := json.Unmarshal(buf.Bytes(), &v); err != nil {
		g.fail(w, http.StatusBadRequest, "Problems parsing JSON")
		return "", false
	}
	var body string
	if raw, ok := v["body"]; !ok || json.Unmarshal(raw, &body) != nil {
		g.fail(w, http.StatusUnprocessableEntity, "Invalid request.\n\n\"body\" wasn't supplied.")
		return "", false
	}
	if utf8.RuneCountInString(body) > maxCommentChars {
		g.fail(w, http.StatusUnprocessableEntity, "Validation Failed", map[string]string{
			"resource": "IssueComment", "code": "custom", "field": "body",
			"message": "body is too long (maximum is 65536 characters)",
		})
		return "", false
	}
	if g.readOnly {
		g.fail(w, http.StatusForbidden, "Resource not accessible by integration")
		return "", false
	}
	return body, true
}

func (g *fakeGitHub) create(w http.ResponseWriter, r *http.Request, s string) {
	n, ok := g.issue(w, s)
	if !ok {
		return
	}
	body, ok := g.body(w, r)
	if !ok {
		return
	}
	g.add(n, "github-actions[bot]", body)
	g.mu.Lock()
	c := g.issues[n][len(g.issues[n])-1]
	v := g.json(c)
	g.mu.Unlock()
	w.Header().Set("Location", v["url"].(string))
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(http.StatusCreated)
	_ = json.NewEncoder(w).Encode(v)
}

func (g *fakeGitHub) update(w http.ResponseWriter, r *http.Request, s string) {
	id, _ := strconv.ParseInt(s, 10, 64)
	g.mu.Lock()
	var found *fakeComment
	for _, cs := range g.issues {
		for _, c := range cs {
			if c.ID == id {
				found = c
			}
		}
	}
	g.mu.Unlock()
	if found == nil {
		g.fail(w, http.StatusNotFound, "Not Found")
		return
	}
	body, ok := g.body(w, r)
	if !ok {
		return
	}
	g.mu.Lock()
	found.Body = body
	found.Updated = found.Updated.Add(time.Minute)
	v := g.json(found)
	g.mu.Unlock()
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	_ = json.NewEncoder(w).Encode(v)
}

// json is a comment as the API shows it (the fields the action may read).
func (g *fakeGitHub) json(c *fakeComment) map[string]any {
	api := fmt.Sprintf("%s/repos/%s/issues", g.srv.URL, g.repo)
	return map[string]any{
		"id":                 c.ID,
		"node_id":            fmt.Sprintf("IC_kw%d", c.ID),
		"url":                fmt.Sprintf("%s/comments/%d", api, c.ID),
		"html_url":           fmt.Sprintf("https://github.com/%s/pull/%d#issuecomment-%d", g.repo, c.Issue, c.ID),
		"issue_url":          fmt.Sprintf("%s/%d", api, c.Issue),
		"body":               c.Body,
		"user":               map[string]any{"login": c.User, "id": 41898282, "type": "Bot"},
		"created_at":         c.Created.Format(time.RFC3339),
		"updated_at":         c.Updated.Format(time.RFC3339),
		"author_association": "NONE",
	}
}
