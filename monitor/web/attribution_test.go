package web

import (
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary"
)

// The incident page names the likely cause in its verdict line with the
// evidence below it; the list of incidents names it beside the summary;
// the API returns it.
func TestIncidentAttribution(t *testing.T) {
	srv, _, _, f := newTestServer(t, fixtureOptions{hourly: 24, reports: 2})
	_, page := get(t, srv, IncidentPath(f.driftIncident))
	for _, want := range []string{
		`<p class="lead">pass rate fell from 95.5% to 72.8%: mentions_total and json_valid regressed on order-status and refund-policy <span class="cause" id="cause">· likely cause: <strong>provider</strong></span></p>`,
		"<li>served model changed since the baseline: gpt-4o-mini-2024-07-18 → gpt-4o-mini-2025-01-31</li>",
		"<li>the control openai/gpt-4o-mini-2024-07-18 held on the same prompts in the same slot</li>",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the incident page lacks %q", want)
		}
	}
	// An incident without an attribution says nothing of a cause.
	if _, other := get(t, srv, IncidentPath(f.unmeasuredIncident)); strings.Contains(other, "likely cause") {
		t.Errorf("the unmeasured incident's page names a likely cause")
	}
	_, list := get(t, srv, "/incidents")
	if n := strings.Count(list, `<span class="cause">· likely cause: <strong>provider</strong></span>`); n != 1 {
		t.Errorf("the list of incidents names the likely cause %d times, want once (one incident has one)", n)
	}
	resp, body := get(t, srv, "/api/v1/incidents/"+f.driftIncident)
	var one APIIncident
	decode(t, resp, body, &one)
	if a := one.Incident.Attribution; a == nil || a.Cause != promptcanary.CauseProvider || len(a.Evidence) != 3 {
		t.Errorf("API incident attribution %+v, want provider with 3 facts", a)
	}
	if !strings.Contains(body, `"attribution": {`+"\n"+`      "cause": "provider",`+"\n"+`      "evidence": [`) {
		t.Errorf("API body lacks the attribution object: %s", body)
	}
}

// A hostile cause and evidence show as text.
func TestIncidentAttributionEscaped(t *testing.T) {
	srv, _, _, _ := newTestServer(t, fixtureOptions{hostile: true, hourly: 12, reports: 2})
	for _, p := range []string{IncidentPath("e1e2e3e4e5e6e7e8"), "/incidents"} {
		_, body := get(t, srv, p)
		if !strings.Contains(body, "likely cause: <strong>&#34;&gt;&lt;img src=x onerror=alert(1)&gt;</strong>") {
			t.Errorf("GET %s: the hostile cause is not shown escaped", p)
		}
		for _, bad := range []string{hostileScript, "<img"} {
			if strings.Contains(body, bad) {
				t.Errorf("GET %s: the page holds %q", p, bad)
			}
		}
	}
	if _, body := get(t, srv, IncidentPath("e1e2e3e4e5e6e7e8")); !strings.Contains(body, "<li>the answer is now &lt;script&gt;alert(1)&lt;/script&gt;</li>") {
		t.Errorf("the hostile evidence is not shown escaped")
	}
}

// A check's control is named on its page and in the API; a check
// without one shows none.
func TestCheckControl(t *testing.T) {
	srv, _, _, f := newTestServer(t, fixtureOptions{hourly: 24, reports: 2})
	_, page := get(t, srv, CheckPath(f.check, f.provider))
	if want := `<div><dt>Control</dt><dd title="run in the same slot with the same prompts, against its own baseline"><span class="mono">openai/gpt-4o-mini-2024-07-18</span></dd></div>`; !strings.Contains(page, want) {
		t.Errorf("the check page lacks %q", want)
	}
	if _, other := get(t, srv, CheckPath(f.check, f.otherProvider)); strings.Contains(other, "<dt>Control</dt>") {
		t.Errorf("a check without a control shows one")
	}
	resp, body := get(t, srv, "/api/v1/checks")
	var got struct {
		Checks []APICheck `json:"checks"`
	}
	decode(t, resp, body, &got)
	controls := map[string]string{}
	for _, c := range got.Checks {
		controls[c.Check+" "+c.Provider] = c.Control
	}
	if c := controls[f.check+" "+f.provider]; c != "openai/gpt-4o-mini-2024-07-18" {
		t.Errorf("API control of the drifting check %q, want openai/gpt-4o-mini-2024-07-18", c)
	}
	if c := controls[f.check+" "+f.otherProvider]; c != "" {
		t.Errorf("API control of a check without one %q, want none", c)
	}
}

// In Chromium, the incident page's verdict line ends with the likely
// cause and lists its evidence; the hostile incident's cause and evidence
// stay text.
func TestBrowserIncidentAttribution(t *testing.T) {
	ctx := newBrowser(t, 1440)
	srv, _, _, f := newTestServer(t, fixtureOptions{hostile: true})
	browse(t, ctx, srv.URL+IncidentPath(f.driftIncident))
	if got := text(t, ctx, ".pagehead .lead"); !strings.HasSuffix(got, "order-status and refund-policy · likely cause: provider") {
		t.Errorf("verdict line %q, want it to end with the likely cause", got)
	}
	if got := text(t, ctx, "ul.evidence li"); !strings.Contains(got, "system_fingerprint changed: fp_44709d6fcb → fp_0ba0d124f1") || count(t, ctx, "ul.evidence li") != 3 {
		t.Errorf("evidence %q, want the 3 facts", got)
	}
	browse(t, ctx, srv.URL+IncidentPath("e1e2e3e4e5e6e7e8"))
	if got := text(t, ctx, "#cause strong"); got != hostileImg {
		t.Errorf("hostile cause shown as %q, want the text %q", got, hostileImg)
	}
	noInjection(t, ctx)
}
