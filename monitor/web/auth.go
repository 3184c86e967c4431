package web

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// The actions (acknowledge an incident, promote a run to baseline) need the
// admin token. The JSON API takes it as "Authorization: Bearer <token>" on
// every request; a browser cannot send that header to another origin
// without a CORS preflight, which is never granted, so the API needs no
// CSRF defence. The pages take it once, at POST /login, and keep a session
// cookie instead:
//
//   - the cookie holds an expiry, the visitor's name and an HMAC-SHA256 of
//     both keyed with the token: never the token itself. It is HttpOnly and
//     SameSite=Strict; rotating the token ends every session.
//   - every action form carries a CSRF token, an HMAC of the session cookie
//     keyed with the token, checked in constant time.
//   - every POST of a form must come from this origin: Sec-Fetch-Site, when
//     sent, must be same-origin, and the Origin (or, without it, the Referer)
//     must name this host (or Options.BaseURL).
//
// Without actions no form is shown and every action answers 403.

const (
	sessionCookie = "promptcanary_session"
	sessionTTL    = 12 * time.Hour
	// maxName bounds the name a visitor gives at login, which
	// acknowledgements record.
	maxName = 64
)

// session is a signed-in visitor.
type session struct {
	Name    string
	Expires time.Time
	// CSRF is the token action forms carry.
	CSRF string
}

// mac returns the HMAC-SHA256 of the parts keyed with the admin token.
func (s *server) mac(parts ...string) []byte {
	h := hmac.New(sha256.New, []byte(s.token))
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return h.Sum(nil)
}

// tokenOK compares a presented token with the admin token in constant time
// (of the token's length too: both are hashed first).
func (s *server) tokenOK(presented string) bool {
	a := sha256.Sum256([]byte(presented))
	b := sha256.Sum256([]byte(s.token))
	return s.token != "" && subtle.ConstantTimeCompare(a[:], b[:]) == 1
}

// newSessionValue returns the cookie value of a session of name until exp.
func (s *server) newSessionValue(name string, exp time.Time) string {
	e := strconv.FormatInt(exp.Unix(), 10)
	n := base64.RawURLEncoding.EncodeToString([]byte(name))
	return n + "." + e + "." + base64.RawURLEncoding.EncodeToString(s.mac("session", n, e))
}

// session returns the visitor's session, nil without a valid one or when
// actions are off.
func (s *server) session(r *http.Request) *session {
	if !s.actions {
		return nil
	}
	c, err := r.Cookie(sessionCookie)
	if err != nil {
		return nil
	}
	parts := strings.Split(c.Value, ".")
	if len(parts) != 3 {
		return nil
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil || !hmac.Equal(sig, s.mac("session", parts[0], parts[1])) {
		return nil
	}
	exp, err := strconv.ParseInt(parts[1], 10, 64)
	if err != nil || !s.now().Before(time.Unix(exp, 0)) {
		return nil
	}
	name, err := base64.RawURLEncoding.DecodeString(parts[0])
	if err != nil {
		return nil
	}
	return &session{
		Name:    string(name),
		Expires: time.Unix(exp, 0),
		CSRF:    base64.RawURLEncoding.EncodeToString(s.mac("csrf", c.Value)),
	}
}

// csrfOK reports whether the form's CSRF token is the session's.
func csrfOK(sess *session, r *http.Request) bool {
	got := r.PostFormValue("csrf")
	return sess != nil && got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(sess.CSRF)) == 1
}

// sameOrigin reports whether a form was posted from this dashboard.
func (s *server) sameOrigin(r *http.Request) bool {
	switch r.Header.Get("Sec-Fetch-Site") {
	case "", "same-origin":
	default:
		return false
	}
	from := r.Header.Get("Origin")
	if from == "" || from == "null" {
		from = r.Header.Get("Referer")
	}
	u, err := url.Parse(from)
	if from == "" || err != nil || u.Host == "" {
		return false
	}
	if s.origin != "" {
		return strings.ToLower(u.Scheme+"://"+u.Host) == s.origin
	}
	return strings.EqualFold(u.Host, r.Host)
}

// cleanName keeps a printable name of at most maxName characters.
func cleanName(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return -1
		}
		return r
	}, strings.TrimSpace(s))
	for utf8.RuneCountInString(s) > maxName {
		_, size := utf8.DecodeLastRuneInString(s)
		s = s[:len(s)-size]
	}
	return strings.TrimSpace(s)
}

// formGate checks an action form: actions on, posted from this origin, a
// session and its CSRF token. It answers the request and returns nil when
// the form is refused.
func (s *server) formGate(w http.ResponseWriter, r *http.Request) *session {
	if !s.actions {
		s.errorPage(w, r, http.StatusForbidden, "Actions are off", "This monitor has no admin_token, or its actions are turned off: the dashboard is read-only.")
		return nil
	}
	if !s.sameOrigin(r) {
		s.errorPage(w, r, http.StatusForbidden, "Cross-origin request refused", "Actions must be posted from this dashboard's own pages.")
		return nil
	}
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	sess := s.session(r)
	if sess == nil {
		s.errorPage(w, r, http.StatusForbidden, "Sign in first", "Your session has expired or you are not signed in: sign in with the admin token, then try again.")
		return nil
	}
	if !csrfOK(sess, r) {
		s.errorPage(w, r, http.StatusForbidden, "Form expired", "The form's security token does not match your session: reload the page and try again.")
		return nil
	}
	return sess
}

func (s *server) loginPage(w http.ResponseWriter, r *http.Request) {
	if !s.actions {
		s.errorPage(w, r, http.StatusForbidden, "Actions are off", "This monitor has no admin_token, or its actions are turned off: there is nothing to sign in to.")
		return
	}
	next := r.URL.Query().Get("next")
	if !localPath(next) {
		next = "/"
	}
	s.render(w, r, http.StatusOK, "login", "Sign in", "", loginView{Next: next})
}

// loginView is the data of the login form.
type loginView struct {
	Next, Name string
	Wrong      bool
}

func (s *server) login(w http.ResponseWriter, r *http.Request) {
	if !s.actions {
		s.errorPage(w, r, http.StatusForbidden, "Actions are off", "This monitor has no admin_token, or its actions are turned off: there is nothing to sign in to.")
		return
	}
	if !s.sameOrigin(r) {
		s.errorPage(w, r, http.StatusForbidden, "Cross-origin request refused", "Sign in from this dashboard's own login page.")
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	next := r.PostFormValue("next")
	if !localPath(next) {
		next = "/"
	}
	name := cleanName(r.PostFormValue("name"))
	if !s.tokenOK(r.PostFormValue("token")) {
		if !s.failures.Allow() {
			s.errorPage(w, r, http.StatusTooManyRequests, "Too many attempts", "Too many wrong tokens: wait a minute before trying again.")
			return
		}
		s.render(w, r, http.StatusUnauthorized, "login", "Sign in", "", loginView{Next: next, Name: name, Wrong: true})
		return
	}
	if name == "" {
		name = "dashboard"
	}
	exp := s.now().Add(sessionTTL)
	http.SetCookie(w, &http.Cookie{
		Name: sessionCookie, Value: s.newSessionValue(name, exp), Path: "/",
		Expires: exp, MaxAge: int(sessionTTL / time.Second),
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: s.secure || r.TLS != nil,
	})
	http.Redirect(w, r, next, http.StatusSeeOther)
}

func (s *server) logout(w http.ResponseWriter, r *http.Request) {
	if s.formGate(w, r) == nil {
		return
	}
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: "", Path: "/", MaxAge: -1,
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: s.secure || r.TLS != nil})
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// bearerStatus checks an API action's Authorization header: 0 when it
// carries the admin token, else the status to answer and why.
func (s *server) bearerStatus(r *http.Request) (int, string) {
	if !s.actions {
		return http.StatusForbidden, "actions are off: the monitor has no admin_token or does not allow actions"
	}
	auth := r.Header.Get("Authorization")
	scheme, tok, ok := strings.Cut(auth, " ")
	if auth == "" || !ok || !strings.EqualFold(scheme, "Bearer") {
		return http.StatusUnauthorized, "missing bearer token: send Authorization: Bearer <admin_token>"
	}
	if !s.tokenOK(strings.TrimSpace(tok)) {
		if !s.failures.Allow() {
			return http.StatusTooManyRequests, "too many wrong tokens: wait a minute"
		}
		return http.StatusUnauthorized, "wrong bearer token"
	}
	return 0, ""
}
