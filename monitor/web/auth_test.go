package web

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"
)

// post sends a POST with a body and headers (name, value pairs).
func post(t *testing.T, srv *httptest.Server, path, contentType, body string, header ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return do(t, req)
}

func TestAPIAck(t *testing.T) {
	for _, tc := range []struct {
		name   string
		header []string
		body   string
		id     string
		status int
		acked  bool
	}{
		{name: "no token", status: http.StatusUnauthorized},
		{name: "wrong token", header: []string{"Authorization", "Bearer wrong"}, status: http.StatusUnauthorized},
		{name: "token as basic auth", header: []string{"Authorization", "Basic " + testToken}, status: http.StatusUnauthorized},
		{name: "token prefix", header: []string{"Authorization", "Bearer " + testToken[:10]}, status: http.StatusUnauthorized},
		{name: "bad body", header: []string{"Authorization", "Bearer " + testToken}, body: `{"who": 1}`, status: http.StatusBadRequest},
		{name: "unknown incident", header: []string{"Authorization", "Bearer " + testToken}, id: "ffffffffff", status: http.StatusNotFound},
		{name: "resolved incident", header: []string{"Authorization", "Bearer " + testToken}, id: "resolved", status: http.StatusConflict},
		{name: "ok", header: []string{"Authorization", "Bearer " + testToken}, body: `{"by": "grace"}`, status: http.StatusOK, acked: true},
		{name: "ok without body", header: []string{"Authorization", "bearer " + testToken}, status: http.StatusOK, acked: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, src, _, f := newTestServer(t, fixtureOptions{hourly: 10, reports: 1})
			id := f.driftIncident
			switch tc.id {
			case "resolved":
				id = f.resolvedIncident
			case "":
			default:
				id = tc.id
			}
			resp, body := post(t, srv, "/api/v1/incidents/"+id+"/ack", "application/json", tc.body, tc.header...)
			var got struct {
				Error    string
				Incident struct {
					ID             string    `json:"id"`
					AcknowledgedBy string    `json:"acknowledged_by"`
					AcknowledgedAt time.Time `json:"acknowledged_at"`
				}
			}
			decode(t, resp, body, &got)
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d (%s), want %d", resp.StatusCode, body, tc.status)
			}
			if tc.status == http.StatusUnauthorized && !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
				t.Error("a 401 without WWW-Authenticate: Bearer")
			}
			if tc.acked != (len(src.acks) == 1) {
				t.Errorf("acknowledgements %q", src.acks)
			}
			if tc.acked && (got.Incident.ID != f.driftIncident || got.Incident.AcknowledgedAt.IsZero()) {
				t.Errorf("answer %s: want the acknowledged incident", body)
			}
			if strings.Contains(body, testToken) {
				t.Error("the answer holds the token")
			}
		})
	}
}

func TestAPIPromote(t *testing.T) {
	auth := []string{"Authorization", "Bearer " + testToken}
	for _, tc := range []struct {
		name, path, body string
		header           []string
		fail             error
		status           int
	}{
		{name: "no token", body: `{"run_id": "RUN"}`, status: http.StatusUnauthorized},
		{name: "no run id", header: auth, body: `{}`, status: http.StatusBadRequest},
		{name: "unknown run", header: auth, body: `{"run_id": "nope-nope"}`, status: http.StatusNotFound},
		{name: "unknown check", path: "/api/v1/checks/nope/openai%2Fgpt-4o-mini/promote", header: auth, body: `{"run_id": "RUN"}`, status: http.StatusNotFound},
		{name: "run of another provider", path: "/api/v1/checks/checkout-prod/anthropic%2Fclaude-3-5-haiku/promote", header: auth, body: `{"run_id": "RUN"}`, status: http.StatusUnprocessableEntity},
		{name: "monitor refuses", header: auth, body: `{"run_id": "RUN"}`, fail: errors.New("check checkout-prod is pinned"), status: http.StatusConflict},
		{name: "ok", header: auth, body: `{"run_id": "RUN"}`, status: http.StatusOK},
		{name: "ok with a prefix", header: auth, body: `{"run_id": "PREFIX"}`, status: http.StatusOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, src, _, f := newTestServer(t, fixtureOptions{hourly: 10, reports: 1})
			src.failPromote = tc.fail
			path := tc.path
			if path == "" {
				path = "/api/v1/checks/checkout-prod/openai%2Fgpt-4o-mini/promote"
			}
			body := strings.ReplaceAll(strings.ReplaceAll(tc.body, "PREFIX", f.cleanRun[:8]), "RUN", f.cleanRun)
			resp, out := post(t, srv, path, "application/json", body, tc.header...)
			var got PromoteResponse
			decode(t, resp, out, &got)
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d (%s), want %d", resp.StatusCode, out, tc.status)
			}
			ok := tc.status == http.StatusOK
			if ok != (len(src.promotes) == 1) {
				t.Errorf("promotions %q", src.promotes)
			}
			if ok && (got.RunID != f.cleanRun || got.Baseline == "" || got.Baseline == f.baseline || src.promotes[0] != f.check+" "+f.provider+" "+f.cleanRun) {
				t.Errorf("answer %+v, promotions %q: want the run promoted to a new baseline", got, src.promotes)
			}
		})
	}
}

func TestActionsOff(t *testing.T) {
	for _, o := range []Options{
		{AdminToken: "", ActionsAllowed: true},
		{AdminToken: testToken, ActionsAllowed: false},
	} {
		src, _, f := newFixture(t, fixtureOptions{hourly: 10, reports: 1})
		o.Source, o.Now = src, func() time.Time { return fixtureNow }
		srv := httptest.NewServer(New(o))
		defer srv.Close()
		same := []string{"Origin", srv.URL}
		for _, p := range []struct{ path, ctype, body string }{
			{"/api/v1/incidents/" + f.driftIncident + "/ack", "application/json", ""},
			{"/api/v1/checks/checkout-prod/openai%2Fgpt-4o-mini/promote", "application/json", `{"run_id": "` + f.cleanRun + `"}`},
			{"/login", "application/x-www-form-urlencoded", "token=" + testToken},
			{IncidentPath(f.driftIncident) + "/ack", "application/x-www-form-urlencoded", "csrf=x"},
			{CheckPath(f.check, f.provider) + "/promote", "application/x-www-form-urlencoded", "csrf=x&run_id=" + f.cleanRun},
		} {
			resp, body := post(t, srv, p.path, p.ctype, p.body, append(same, "Authorization", "Bearer "+testToken)...)
			if resp.StatusCode != http.StatusForbidden {
				t.Errorf("actions off (%+v): POST %s: %d, want 403\n%.200s", o.AdminToken != "", p.path, resp.StatusCode, body)
			}
		}
		for _, path := range []string{"/", IncidentPath(f.driftIncident), CheckPath(f.check, f.provider), RunPath(f.driftRun)} {
			_, body := get(t, srv, path)
			if strings.Contains(body, "<form") || strings.Contains(body, "Sign in") {
				t.Errorf("actions off: %s shows a form or a sign-in link", path)
			}
		}
		if resp, _ := get(t, srv, "/login"); resp.StatusCode != http.StatusForbidden {
			t.Errorf("actions off: GET /login: %d, want 403", resp.StatusCode)
		}
		if src.actions() != 0 {
			t.Error("an action was taken with actions off")
		}
	}
}

// login signs in through the form and returns the session cookie.
func login(t *testing.T, srv *httptest.Server, token string) (*http.Response, *http.Cookie) {
	t.Helper()
	form := url.Values{"token": {token}, "name": {"ada\u202e<b>"}, "next": {"/incidents"}}
	resp, _ := post(t, srv, "/login", "application/x-www-form-urlencoded", form.Encode(), "Origin", srv.URL)
	for _, c := range resp.Cookies() {
		if c.Name == sessionCookie {
			return resp, c
		}
	}
	return resp, nil
}

var csrfRe = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// formCSRF returns the CSRF token of the action forms of a page.
func formCSRF(t *testing.T, srv *httptest.Server, path string, c *http.Cookie) string {
	t.Helper()
	_, body := get(t, srv, path, "Cookie", c.Name+"="+c.Value)
	m := csrfRe.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("%s shows no action form to a signed-in visitor", path)
	}
	return m[1]
}

func TestLogin(t *testing.T) {
	srv, _, _, _ := newTestServer(t, fixtureOptions{hourly: 10, reports: 1})
	resp, c := login(t, srv, "wrong")
	if resp.StatusCode != http.StatusUnauthorized || c != nil {
		t.Errorf("a wrong token: %d with cookie %v, want 401 and none", resp.StatusCode, c)
	}
	resp, c = login(t, srv, testToken)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/incidents" || c == nil {
		t.Fatalf("the token: %d to %q, cookie %v; want 303 to /incidents with a session", resp.StatusCode, resp.Header.Get("Location"), c)
	}
	if !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Path != "/" {
		t.Errorf("the session cookie %+v is not HttpOnly, SameSite=Strict for /", c)
	}
	if strings.Contains(c.Value, testToken) || strings.Contains(resp.Header.Get("Set-Cookie"), testToken) {
		t.Error("the session cookie holds the token")
	}
	_, body := get(t, srv, "/", "Cookie", c.Name+"="+c.Value)
	if !strings.Contains(body, "Signed in as <strong>ada&lt;b&gt;</strong>") {
		t.Error("the header does not show the signed-in name, cleaned and escaped")
	}
	// A tampered or expired cookie is no session.
	for _, v := range []string{c.Value + "x", "YWRh.9999999999." + strings.Split(c.Value, ".")[2], "a.b", ""} {
		_, body := get(t, srv, "/", "Cookie", c.Name+"="+v)
		if strings.Contains(body, "Signed in") {
			t.Errorf("cookie %q is taken as a session", v)
		}
	}
	later := New(Options{Source: srvSource(t), AdminToken: testToken, ActionsAllowed: true,
		Now: func() time.Time { return fixtureNow.Add(sessionTTL + time.Minute) }})
	rec := httptest.NewRecorder()
	req := httptest.NewRequest("GET", "/", nil)
	req.AddCookie(c)
	later.ServeHTTP(rec, req)
	if strings.Contains(rec.Body.String(), "Signed in") {
		t.Error("an expired session is still signed in")
	}
	// Another token ends every session.
	rotated := New(Options{Source: srvSource(t), AdminToken: testToken + "2", ActionsAllowed: true, Now: func() time.Time { return fixtureNow }})
	rec = httptest.NewRecorder()
	rotated.ServeHTTP(rec, req)
	if strings.Contains(rec.Body.String(), "Signed in") {
		t.Error("a session outlives the token it was made with")
	}
	// An open redirect is refused.
	form := url.Values{"token": {testToken}, "next": {"//evil.example/x"}}
	resp, _ = post(t, srv, "/login", "application/x-www-form-urlencoded", form.Encode(), "Origin", srv.URL)
	if loc := resp.Header.Get("Location"); loc != "/" {
		t.Errorf("next=//evil.example/x redirects to %q, want /", loc)
	}
}

func srvSource(t *testing.T) Source {
	src, _, _ := newFixture(t, fixtureOptions{hourly: 2, reports: 1})
	return src
}

func TestFormActions(t *testing.T) {
	srv, src, _, f := newTestServer(t, fixtureOptions{hourly: 10, reports: 1})
	_, c := login(t, srv, testToken)
	cookie := c.Name + "=" + c.Value
	ackPath := IncidentPath(f.driftIncident) + "/ack"
	csrf := formCSRF(t, srv, IncidentPath(f.driftIncident), c)
	for _, tc := range []struct {
		name    string
		header  []string
		body    string
		status  int
		mutates bool
	}{
		{"no session", []string{"Origin", srv.URL}, "csrf=" + csrf, http.StatusForbidden, false},
		{"no csrf token", []string{"Origin", srv.URL, "Cookie", cookie}, "", http.StatusForbidden, false},
		{"wrong csrf token", []string{"Origin", srv.URL, "Cookie", cookie}, "csrf=" + csrf[:len(csrf)-2] + "xx", http.StatusForbidden, false},
		{"cross-origin", []string{"Origin", "https://evil.example", "Cookie", cookie}, "csrf=" + csrf, http.StatusForbidden, false},
		{"cross-site fetch", []string{"Origin", srv.URL, "Sec-Fetch-Site", "cross-site", "Cookie", cookie}, "csrf=" + csrf, http.StatusForbidden, false},
		{"null origin", []string{"Origin", "null", "Cookie", cookie}, "csrf=" + csrf, http.StatusForbidden, false},
		{"no origin or referer", []string{"Cookie", cookie}, "csrf=" + csrf, http.StatusForbidden, false},
		{"cross-origin referer", []string{"Referer", "https://evil.example/", "Cookie", cookie}, "csrf=" + csrf, http.StatusForbidden, false},
		{"bearer instead of session", []string{"Origin", srv.URL, "Authorization", "Bearer " + testToken}, "csrf=" + csrf, http.StatusForbidden, false},
		{"same-origin referer", []string{"Referer", srv.URL + IncidentPath(f.driftIncident), "Cookie", cookie}, "csrf=" + csrf, http.StatusSeeOther, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := src.actions()
			resp, body := post(t, srv, ackPath, "application/x-www-form-urlencoded", tc.body, tc.header...)
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d\n%.300s", resp.StatusCode, tc.status, body)
			}
			if got := src.actions() > before; got != tc.mutates {
				t.Errorf("acted: %v, want %v", got, tc.mutates)
			}
		})
	}
	if len(src.acks) != 1 || src.acks[0] != f.driftIncident+" ada<b>" {
		t.Errorf("acknowledgements %q, want one by the signed-in name", src.acks)
	}
	// The CSRF token of one session is no good in another.
	form := url.Values{"token": {testToken}, "name": {"bob"}}
	resp, _ := post(t, srv, "/login", "application/x-www-form-urlencoded", form.Encode(), "Origin", srv.URL)
	bob := resp.Cookies()[0]
	bobCSRF := formCSRF(t, srv, CheckPath(f.check, f.provider), bob)
	if bobCSRF == csrf {
		t.Fatal("two sessions have the same CSRF token")
	}
	if resp, _ := post(t, srv, CheckPath(f.check, f.provider)+"/promote", "application/x-www-form-urlencoded", "csrf="+bobCSRF+"&run_id="+f.cleanRun,
		"Origin", srv.URL, "Cookie", cookie); resp.StatusCode != http.StatusForbidden {
		t.Errorf("another session's CSRF token: %d, want 403", resp.StatusCode)
	}

	// Promote through the form.
	promote := CheckPath(f.check, f.provider) + "/promote"
	csrf = formCSRF(t, srv, CheckPath(f.check, f.provider), c)
	resp, body := post(t, srv, promote, "application/x-www-form-urlencoded", "csrf="+csrf+"&run_id="+f.cleanRun, "Origin", srv.URL, "Cookie", cookie)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != CheckPath(f.check, f.provider) || len(src.promotes) != 1 {
		t.Errorf("promote form: %d to %q, promotions %q\n%.300s", resp.StatusCode, resp.Header.Get("Location"), src.promotes, body)
	}
	resp, _ = post(t, srv, promote, "application/x-www-form-urlencoded", "csrf="+csrf+"&run_id="+f.cleanRun, "Origin", "http://evil.example", "Cookie", cookie)
	if resp.StatusCode != http.StatusForbidden || len(src.promotes) != 1 {
		t.Errorf("cross-origin promote form: %d, promotions %q", resp.StatusCode, src.promotes)
	}

	// Signing out needs the same checks, and ends the session.
	resp, _ = post(t, srv, "/logout", "application/x-www-form-urlencoded", "csrf="+csrf, "Origin", "http://evil.example", "Cookie", cookie)
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("cross-origin logout: %d, want 403", resp.StatusCode)
	}
	resp, _ = post(t, srv, "/logout", "application/x-www-form-urlencoded", "csrf="+csrf, "Origin", srv.URL, "Cookie", cookie)
	if resp.StatusCode != http.StatusSeeOther || len(resp.Cookies()) != 1 || resp.Cookies()[0].MaxAge >= 0 {
		t.Errorf("logout: %d, cookies %v, want 303 clearing the session", resp.StatusCode, resp.Cookies())
	}
}

func TestBaseURLOrigin(t *testing.T) {
	src, _, f := newFixture(t, fixtureOptions{hourly: 10, reports: 1})
	srv := httptest.NewServer(New(Options{Source: src, AdminToken: testToken, ActionsAllowed: true, BaseURL: "https://canary.example.com/",
		Now: func() time.Time { return fixtureNow }}))
	defer srv.Close()
	form := url.Values{"token": {testToken}}.Encode()
	// Behind a proxy the browser's origin is the public one, not the Host
	// the dashboard sees.
	if resp, _ := post(t, srv, "/login", "application/x-www-form-urlencoded", form, "Origin", srv.URL); resp.StatusCode != http.StatusForbidden {
		t.Errorf("login from the backend's own origin with a BaseURL: %d, want 403", resp.StatusCode)
	}
	resp, _ := post(t, srv, "/login", "application/x-www-form-urlencoded", form, "Origin", "https://canary.example.com")
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("login from the BaseURL's origin: %d, want 303", resp.StatusCode)
	}
	if c := resp.Cookies(); len(c) != 1 || !c[0].Secure {
		t.Errorf("an https BaseURL gives a cookie that is not Secure: %v", c)
	}
	_ = f
}

func TestGetNeverMutates(t *testing.T) {
	srv, src, mem, f := newTestServer(t, fixtureOptions{hourly: 10, reports: 1})
	_, c := login(t, srv, testToken)
	before := len(mem.checkRuns) + len(mem.incidents) + len(mem.events) + len(mem.baselines)
	paths := []string{
		"/", "/incidents", IncidentPath(f.driftIncident), CheckPath(f.check, f.provider), RunPath(f.driftRun),
		IncidentPath(f.driftIncident) + "/ack", CheckPath(f.check, f.provider) + "/promote?run_id=" + f.cleanRun,
		"/api/v1/incidents/" + f.driftIncident + "/ack", "/api/v1/checks/checkout-prod/openai%2Fgpt-4o-mini/promote?run_id=" + f.cleanRun,
		"/logout", "/login?token=" + testToken,
	}
	for _, p := range paths {
		for _, m := range []string{http.MethodGet, http.MethodHead} {
			req, _ := http.NewRequest(m, srv.URL+p, nil)
			req.Header.Set("Authorization", "Bearer "+testToken)
			req.Header.Set("Origin", srv.URL)
			req.AddCookie(c)
			resp, _ := do(t, req)
			if resp.StatusCode == http.StatusOK && strings.HasSuffix(strings.Split(p, "?")[0], "/ack") {
				t.Errorf("%s %s answered 200", m, p)
			}
			if len(resp.Cookies()) > 0 && strings.HasPrefix(p, "/login") {
				t.Errorf("%s %s set a cookie", m, p)
			}
		}
	}
	if src.actions() != 0 {
		t.Errorf("GET and HEAD requests took %d actions", src.actions())
	}
	if after := len(mem.checkRuns) + len(mem.incidents) + len(mem.events) + len(mem.baselines); after != before {
		t.Errorf("GET and HEAD requests changed the store: %d records, then %d", before, after)
	}
}

func TestTokenNeverShown(t *testing.T) {
	srv, _, _, f := newTestServer(t, fixtureOptions{hourly: 10, reports: 1})
	_, c := login(t, srv, testToken)
	for _, p := range append(mapValues(pagePaths(f)), "/api/v1/checks", "/api/v1/incidents", "/static/dashboard.js") {
		resp, body := get(t, srv, p, "Cookie", c.Name+"="+c.Value)
		if strings.Contains(body, testToken) {
			t.Errorf("%s shows the admin token", p)
		}
		for k, vs := range resp.Header {
			for _, v := range vs {
				if strings.Contains(v, testToken) {
					t.Errorf("%s: header %s holds the admin token", p, k)
				}
			}
		}
	}
}

func mapValues(m map[string]string) []string {
	var out []string
	for _, v := range m {
		out = append(out, v)
	}
	return out
}
