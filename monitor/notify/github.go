package notify

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/httpc"
)

// DefaultGitHubAPI is the GitHub REST API's base URL.
const DefaultGitHubAPI = "https://api.github.com"

// gitHubMaxPages bounds the pages of open issues searched for an
// incident's issue (100 issues a page, newest first).
const gitHubMaxPages = 10

// gitHubTableUnits bounds the units an issue's table lists.
const gitHubTableUnits = 50

// gitHubTitleMax bounds an issue title, in characters.
const gitHubTitleMax = 200

var repoPattern = regexp.MustCompile(`^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$`)

// github keeps one issue per incident: it opens the issue, comments on
// updates and closes it on resolve. The issue's body carries a marker
// with the incident's fingerprint and id, by which an open issue is
// found again, so a restarted monitor (or a retried attempt whose answer
// was lost) comments on it instead of opening another.
type github struct {
	base
	api    *url.URL
	owner  string
	repo   string
	token  string
	labels []string
	hc     *httpc.Client

	mu sync.Mutex
	// closing remembers the issues whose resolve comment was posted but
	// whose close failed, so a retry closes without commenting twice.
	closing map[string]int
}

func newGitHub(cfg Config, hc *httpc.Client) (Notifier, error) {
	if !repoPattern.MatchString(cfg.Repo) {
		return nil, fmt.Errorf("repo %q must be OWNER/NAME", cfg.Repo)
	}
	if cfg.Token == "" {
		return nil, fmt.Errorf("token is empty (set it from the environment: token: ${GITHUB_TOKEN})")
	}
	api, err := apiURL(cfg.APIURL, DefaultGitHubAPI)
	if err != nil {
		return nil, err
	}
	owner, repo, _ := strings.Cut(cfg.Repo, "/")
	return &github{
		base: base{cfg.Name, cfg.MinSeverity}, api: api, owner: owner, repo: repo,
		token: cfg.Token, labels: cfg.Labels, hc: hc, closing: map[string]int{},
	}, nil
}

// Marker is the HTML comment in the body of an incident's GitHub issue
// by which the issue is found again. Only characters that cannot end the
// comment are kept of the fingerprint and the id.
func Marker(inc promptcanary.Incident) string {
	return "<!-- promptcanary:fingerprint=" + markerSafe(inc.Fingerprint) + " incident=" + markerSafe(inc.ID) + " -->"
}

func markerSafe(s string) string {
	s = strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-._:/+=", r) {
			return r
		}
		return '_'
	}, s)
	// "--" may not occur inside an HTML comment.
	return strings.ReplaceAll(s, "--", "-_")
}

// Send opens, updates or closes the incident's issue. The code returned
// is the status of the last request made.
func (g *github) Send(ctx context.Context, m Message) (int, error) {
	number, code, err := g.find(ctx, m.Incident)
	if err != nil {
		return code, err
	}
	if m.Status == promptcanary.NotificationResolved {
		return g.resolve(ctx, m, number, code)
	}
	if number == 0 {
		// Opened, or an update of an incident whose issue is gone (closed
		// by someone, or never opened): the incident fires, so open one.
		return g.open(ctx, m)
	}
	return g.comment(ctx, number, gitHubComment(m))
}

// resolve comments on the issue and closes it; without an open issue
// there is nothing to do.
func (g *github) resolve(ctx context.Context, m Message, number, code int) (int, error) {
	if number == 0 {
		return code, nil
	}
	key := m.Incident.ID + "\x00" + strconv.Itoa(number)
	g.mu.Lock()
	_, commented := g.closing[key]
	g.mu.Unlock()
	if !commented {
		if code, err := g.comment(ctx, number, gitHubComment(m)); err != nil {
			return code, err
		}
		g.mu.Lock()
		g.closing[key] = number
		g.mu.Unlock()
	}
	body, _ := json.Marshal(map[string]string{"state": "closed", "state_reason": "completed"})
	r, err := g.call(ctx, "close github issue", http.MethodPatch, g.issuesPath(strconv.Itoa(number)), body, http.StatusOK)
	if err != nil {
		return codeOf(err), err
	}
	g.mu.Lock()
	delete(g.closing, key)
	g.mu.Unlock()
	return r.Status, nil
}

// open creates the incident's issue.
func (g *github) open(ctx context.Context, m Message) (int, error) {
	labels := g.labels
	if labels == nil {
		labels = []string{}
	}
	body, err := json.Marshal(struct {
		Title  string   `json:"title"`
		Body   string   `json:"body"`
		Labels []string `json:"labels"`
	}{gitHubTitle(m.Incident), gitHubIssueBody(m), labels})
	if err != nil {
		return 0, &Error{Op: "open github issue", Message: "encode body: " + g.hc.Line(err.Error(), 300)}
	}
	r, err := g.call(ctx, "open github issue", http.MethodPost, g.issuesPath(), body, http.StatusCreated)
	if err != nil {
		return codeOf(err), err
	}
	return r.Status, nil
}

// comment posts a comment on issue number.
func (g *github) comment(ctx context.Context, number int, text string) (int, error) {
	body, _ := json.Marshal(map[string]string{"body": text})
	r, err := g.call(ctx, "comment on github issue", http.MethodPost, g.issuesPath(strconv.Itoa(number), "comments"), body, http.StatusCreated)
	if err != nil {
		return codeOf(err), err
	}
	return r.Status, nil
}

// gitHubIssue is what find reads of a listed issue.
type gitHubIssue struct {
	Number      int             `json:"number"`
	Body        string          `json:"body"`
	PullRequest json.RawMessage `json:"pull_request"`
}

// find returns the number of the open issue whose body holds inc's
// marker, 0 when there is none, and the status of the last page read. It
// reads open issues with the notifier's labels, newest first, following
// Link rel="next" for at most gitHubMaxPages pages, and skips pull
// requests.
func (g *github) find(ctx context.Context, inc promptcanary.Incident) (number, code int, err error) {
	marker := Marker(inc)
	q := url.Values{"state": {"open"}, "per_page": {"100"}, "sort": {"created"}, "direction": {"desc"}}
	if len(g.labels) > 0 {
		q.Set("labels", strings.Join(g.labels, ","))
	}
	next := g.issuesPath() + "?" + q.Encode()
	for page := 0; page < gitHubMaxPages && next != ""; page++ {
		r, err := g.call(ctx, "list github issues", http.MethodGet, next, nil, http.StatusOK)
		if err != nil {
			return 0, codeOf(err), err
		}
		code = r.Status
		var issues []gitHubIssue
		if err := json.Unmarshal(r.Body, &issues); err != nil {
			return 0, code, &Error{Op: "list github issues", Code: code, Message: "malformed JSON answer: " + g.hc.Line(err.Error(), 300), Retryable: true}
		}
		for _, is := range issues {
			if len(is.PullRequest) > 0 && string(is.PullRequest) != "null" {
				continue
			}
			if strings.Contains(is.Body, marker) {
				return is.Number, code, nil
			}
		}
		next, err = g.nextPage(r.Header.Get("Link"))
		if err != nil {
			return 0, code, err
		}
	}
	return 0, code, nil
}

var linkNext = regexp.MustCompile(`<([^>]*)>\s*;[^,]*\brel="?next"?`)

// nextPage returns the rel="next" link of a Link header, "" when none.
// A link to another host is refused: the token goes only to the API.
func (g *github) nextPage(link string) (string, error) {
	m := linkNext.FindStringSubmatch(link)
	if m == nil {
		return "", nil
	}
	u, err := url.Parse(m[1])
	if err != nil || (u.IsAbs() && (u.Scheme != g.api.Scheme || u.Host != g.api.Host)) {
		return "", &Error{Op: "list github issues", Message: "the next page's link points to another host; not followed"}
	}
	return g.api.ResolveReference(u).String(), nil
}

// issuesPath returns the URL of /repos/{owner}/{repo}/issues/{more…}.
func (g *github) issuesPath(more ...string) string {
	p := g.api.String() + "/repos/" + url.PathEscape(g.owner) + "/" + url.PathEscape(g.repo) + "/issues"
	for _, s := range more {
		p += "/" + url.PathEscape(s)
	}
	return p
}

// call makes one API request and classifies an answer other than want.
func (g *github) call(ctx context.Context, op, method, rawURL string, body []byte, want int) (*httpc.Response, error) {
	h := http.Header{
		"Accept":               {"application/vnd.github+json"},
		"Authorization":        {"Bearer " + g.token},
		"X-Github-Api-Version": {"2022-11-28"},
	}
	if body != nil {
		h.Set("Content-Type", "application/json")
	}
	r, err := g.hc.Exchange(ctx, op, method, rawURL, h, body)
	if err != nil {
		return nil, err
	}
	if r.Status == want {
		return r, nil
	}
	return nil, g.statusError(op, r)
}

// statusError explains a GitHub error answer, telling rate limits (403
// or 429, retried after the time they name) from refusals.
func (g *github) statusError(op string, r *httpc.Response) *Error {
	var v struct {
		Message string `json:"message"`
		Errors  []struct {
			Resource string `json:"resource"`
			Field    string `json:"field"`
			Code     string `json:"code"`
			Message  string `json:"message"`
		} `json:"errors"`
	}
	detail := strings.TrimSpace(string(r.Body))
	if json.Unmarshal(r.Body, &v) == nil && v.Message != "" {
		detail = v.Message
		for _, e := range v.Errors {
			switch {
			case e.Message != "":
				detail += "; " + e.Message
			case e.Field != "":
				detail += "; " + e.Resource + "." + e.Field + " " + e.Code
			}
		}
	}
	repo := g.owner + "/" + g.repo
	hint := ""
	switch r.Status {
	case http.StatusUnauthorized:
		hint = "check the token"
	case http.StatusForbidden:
		hint = "the token needs write access to the issues of " + repo
	case http.StatusNotFound:
		hint = "repository " + repo + " not found, or the token cannot see it"
	case http.StatusGone:
		hint = "issues are disabled in " + repo
	case http.StatusUnprocessableEntity:
		hint = "GitHub rejected the request"
	}
	delay, limited := gitHubRateLimit(r, time.Now(), v.Message)
	if limited {
		hint = "rate limited"
	}
	e := g.hc.StatusError(op, r, detail, hint, time.Now())
	if limited {
		e.Retryable = true
		e.RetryAfter = delay
	}
	return e
}

// gitHubRateLimit tells a rate-limit answer and how long to wait: the
// retry-after header, else x-ratelimit-reset when no request remains,
// else a minute for a secondary rate limit, as GitHub documents.
func gitHubRateLimit(r *httpc.Response, now time.Time, message string) (time.Duration, bool) {
	if r.Status != http.StatusForbidden && r.Status != http.StatusTooManyRequests {
		return 0, false
	}
	if d := httpc.RetryAfterHeader(r.Header, now); d > 0 {
		return d, true
	}
	if r.Header.Get("X-Ratelimit-Remaining") == "0" {
		if reset, err := strconv.ParseInt(r.Header.Get("X-Ratelimit-Reset"), 10, 64); err == nil {
			return min(max(time.Unix(reset, 0).Sub(now), time.Second), httpc.MaxRetryAfter), true
		}
		return time.Minute, true
	}
	if r.Status == http.StatusTooManyRequests || strings.Contains(strings.ToLower(message), "rate limit") {
		return time.Minute, true
	}
	return 0, false
}

// codeOf returns the HTTP status an *Error carries, 0 for other errors.
func codeOf(err error) int {
	if e, ok := err.(*Error); ok {
		return e.Code
	}
	return 0
}

// gitHubTitle is "[promptcanary] <check>: <summary>".
func gitHubTitle(inc promptcanary.Incident) string {
	s := inc.Summary
	if s == "" {
		s = string(inc.Kind) + " incident"
	}
	return cut(strings.Join(strings.Fields("[promptcanary] "+inc.Check+": "+s), " "), gitHubTitleMax)
}

// gitHubIssueBody is the body of an incident's issue, ending with its
// Marker.
func gitHubIssueBody(m Message) string {
	inc := m.Incident
	var b strings.Builder
	fmt.Fprintf(&b, "PromptCanary opened a **%s** incident for check %s (provider %s", mdEscape(string(inc.Kind)), mdCode(inc.Check), mdCode(inc.Provider))
	if inc.Suite != "" {
		fmt.Fprintf(&b, ", suite %s", mdCode(inc.Suite))
	}
	b.WriteString(").\n\n")
	if inc.Summary != "" {
		b.WriteString(mdEscape(inc.Summary) + "\n\n")
	}
	gitHubAttribution(&b, inc)
	gitHubFacts(&b, m)
	gitHubTable(&b, inc.Units)
	b.WriteString("\nThis issue is commented on when the incident changes and closed when it resolves.\n\n")
	b.WriteString(Marker(inc) + "\n")
	return b.String()
}

// gitHubComment is the comment of an update, a repeat or a resolve.
func gitHubComment(m Message) string {
	inc := m.Incident
	var b strings.Builder
	switch {
	case m.Status == promptcanary.NotificationResolved:
		b.WriteString("**Resolved**")
		if !inc.ResolvedAt.IsZero() {
			b.WriteString(" at " + inc.ResolvedAt.UTC().Format(time.RFC3339))
		}
		if inc.CleanRuns > 0 {
			fmt.Fprintf(&b, " after %d clean runs", inc.CleanRuns)
		}
		b.WriteString(".\n")
		if m.ReportURL != "" {
			b.WriteString("\n[Incident on the dashboard](" + mdURL(m.ReportURL) + ")\n")
		}
		return b.String()
	case m.Event == promptcanary.EventUpdated:
		b.WriteString("**Updated**: ")
	case m.Event == promptcanary.EventRepeated:
		b.WriteString("**Still open**: ")
	default:
		b.WriteString("**Firing**: ")
	}
	if inc.Summary != "" {
		b.WriteString(mdEscape(inc.Summary))
	}
	b.WriteString("\n\n")
	gitHubAttribution(&b, inc)
	gitHubFacts(&b, m)
	gitHubTable(&b, inc.Units)
	return b.String()
}

// gitHubAttribution writes the likely cause of inc with its facts, as
// literal text: a fact can quote a model's answer.
func gitHubAttribution(b *strings.Builder, inc promptcanary.Incident) {
	a := attributionOf(inc)
	if a == nil {
		return
	}
	fmt.Fprintf(b, "**Likely cause: %s**\n\n", mdEscape(a.Cause))
	for _, e := range a.Evidence {
		fmt.Fprintf(b, "- %s\n", mdEscape(e))
	}
	if len(a.Evidence) > 0 {
		b.WriteString("\n")
	}
}

// gitHubFacts writes the severity, times, run and link of an incident.
func gitHubFacts(b *strings.Builder, m Message) {
	inc := m.Incident
	fmt.Fprintf(b, "- Severity: **%s**\n", mdEscape(string(inc.Severity)))
	if !inc.OpenedAt.IsZero() {
		fmt.Fprintf(b, "- Opened: %s\n", inc.OpenedAt.UTC().Format(time.RFC3339))
	}
	if inc.RunID != "" {
		fmt.Fprintf(b, "- Run: %s\n", mdCode(inc.RunID))
	}
	fmt.Fprintf(b, "- Incident: %s\n", mdCode(inc.ID))
	if m.ReportURL != "" {
		fmt.Fprintf(b, "- Report: [on the dashboard](%s)\n", mdURL(m.ReportURL))
	}
}

// gitHubTable writes the flagged units as a table, the largest drops first.
func gitHubTable(b *strings.Builder, units []promptcanary.IncidentUnit) {
	if len(units) == 0 {
		return
	}
	b.WriteString("\n| unit | name | baseline | current | q |\n|---|---|---|---|---|\n")
	for _, u := range topUnits(units, gitHubTableUnits) {
		q := "–"
		if u.Q > 0 {
			q = formatQ(u.Q)
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s |\n", mdEscape(u.Unit), mdCode(u.Name), percent(u.Baseline), percent(u.Current), q)
	}
	if more := len(units) - gitHubTableUnits; more > 0 {
		fmt.Fprintf(b, "\n…and %d more units.\n", more)
	}
}

// mdEscape makes untrusted text literal in GitHub Markdown: punctuation
// that formats, links or breaks a table cell is backslash-escaped, an
// "@" cannot mention anyone, and newlines become spaces.
func mdEscape(s string) string {
	var b strings.Builder
	for _, r := range strings.Join(strings.Fields(s), " ") {
		switch {
		case strings.ContainsRune("\\`*_{}[]()<>#+-!|~", r):
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '@':
			b.WriteString("@\u200b")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// mdCode shows untrusted text as inline code, which GitHub renders
// literally (no mentions, no links); a pipe is escaped for tables.
func mdCode(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	s = strings.ReplaceAll(s, "`", "'")
	s = strings.ReplaceAll(s, "|", "\\|")
	if s == "" {
		return "–"
	}
	return "`" + s + "`"
}

// mdURL makes u fit in a Markdown link target.
func mdURL(u string) string {
	return strings.NewReplacer(" ", "%20", "(", "%28", ")", "%29", "<", "%3C", ">", "%3E").Replace(u)
}
