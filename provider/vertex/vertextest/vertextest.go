// Package vertextest is a strict local stand-in for Google Vertex AI and
// its OAuth token endpoint, for tests of the vertex client and of CLI
// transcripts.
//
// Its token endpoint plays https://oauth2.googleapis.com/token for a
// service account it made: it takes only a JWT-bearer grant whose
// assertion is signed RS256 with the account's key (kid = private_key_id)
// and claims iss = the account's client_email, aud = the token URI, a
// scope holding cloud-platform, and iat/exp within the hour around now,
// and answers with a fresh access token
// (https://developers.google.com/identity/protocols/oauth2/service-account#authorizingrequests).
// It also plays gcloud's user credentials (authorized_user): a
// refresh_token grant with the client ID, client secret and refresh token
// of UserCredentialsJSON
// (https://developers.google.com/identity/protocols/oauth2/web-server#offline).
// And it plays the metadata server of a Compute Engine instance under
// /computeMetadata/v1/ (point GCE_METADATA_HOST at it): requests must
// carry "Metadata-Flavor: Google", and the default service account's
// token must be asked for with the cloud-platform scope
// (https://cloud.google.com/compute/docs/access/authenticate-workloads#applications).
// Its API endpoints take only those tokens as bearer tokens, only the
// stand-in's project, and apply the Gemini API rules of geminitest to
// …/publishers/google/models/MODEL:generateContent and the Messages API
// rules of anthropictest, Vertex's form, to
// …/publishers/anthropic/models/MODEL:rawPredict (no "model" in the body,
// "anthropic_version": "vertex-2023-10-16";
// https://cloud.google.com/vertex-ai/generative-ai/docs/partner-models/claude).
package vertextest

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/promptcanary/promptcanary/provider/anthropic/anthropictest"
	"github.com/promptcanary/promptcanary/provider/gemini/geminitest"
	"github.com/promptcanary/promptcanary/provider/internal/standinlog"
)

// Server is the stand-in: the token endpoint at /token and the Vertex AI
// API under /v1/projects/….
type Server struct {
	*httptest.Server
	// Project is the only project the API serves.
	Project string
	// Email is the service account's client_email.
	Email string
	// OnRequest, when set before the first request, is called with each
	// API request (not token or metadata requests) once it is answered
	// (transcripts log them to a file).
	OnRequest standinlog.Func

	key   *rsa.PrivateKey
	keyID string

	// Recorder keeps the bodies of the API requests received so far.
	standinlog.Recorder

	mu     sync.Mutex
	tokens []string
	now    func() time.Time
}

// NewServer starts a stand-in for project with a new service account;
// Close it when done.
func NewServer(project string) (*Server, error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, err
	}
	s := &Server{Project: project, Email: "canary@" + project + ".iam.gserviceaccount.com", key: key, keyID: "standin-key-1", now: time.Now}
	s.Server = httptest.NewServer(s)
	return s, nil
}

// TokenURI is the token endpoint, the SA file's token_uri.
func (s *Server) TokenURI() string { return s.URL + "/token" }

// PrivateKeyPEM is the service account's private key, PEM-encoded.
func (s *Server) PrivateKeyPEM() string {
	der, _ := x509.MarshalPKCS8PrivateKey(s.key)
	return string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
}

// CredentialsJSON is the service account's key file, as the Cloud
// console writes it, with token_uri pointing at the stand-in.
func (s *Server) CredentialsJSON() []byte {
	b, _ := json.MarshalIndent(map[string]string{
		"type": "service_account", "project_id": s.Project, "private_key_id": s.keyID,
		"private_key": s.PrivateKeyPEM(), "client_email": s.Email, "client_id": "100000000000000000001",
		"auth_uri": "https://accounts.google.com/o/oauth2/auth", "token_uri": s.TokenURI(),
		"universe_domain": "googleapis.com",
	}, "", "  ")
	return b
}

// User credentials of the stand-in, as "gcloud auth application-default
// login" writes them.
const (
	UserClientID     = "764086051850-standin.apps.googleusercontent.com"
	UserClientSecret = "d-FL95Q19q7MQmFpd7hHD0Ty"
	UserRefreshToken = "1//0standin-refresh-token-Xq9"
)

// UserCredentialsJSON is an authorized_user file, as gcloud writes it to
// ~/.config/gcloud/application_default_credentials.json. It names no
// token endpoint: the library's default is used.
func (s *Server) UserCredentialsJSON() []byte {
	b, _ := json.MarshalIndent(map[string]string{
		"type": "authorized_user", "client_id": UserClientID, "client_secret": UserClientSecret,
		"refresh_token": UserRefreshToken, "quota_project_id": s.Project, "universe_domain": "googleapis.com",
	}, "", "  ")
	return b
}

// WriteCredentials writes CredentialsJSON to dir and returns its path.
func (s *Server) WriteCredentials(dir string) (string, error) {
	path := filepath.Join(dir, "service-account.json")
	return path, os.WriteFile(path, s.CredentialsJSON(), 0o600)
}

// Tokens returns the access tokens minted so far.
func (s *Server) Tokens() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.tokens...)
}

// ServeHTTP routes to the token endpoint or the API.
func (s *Server) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if req.URL.Path == "/token" {
		s.token(w, req)
		return
	}
	if rest, ok := strings.CutPrefix(req.URL.Path, "/computeMetadata/v1/"); ok {
		s.metadata(w, req, rest)
		return
	}
	s.api(w, req)
}

// token checks a JWT-bearer grant and mints a token.
func (s *Server) token(w http.ResponseWriter, req *http.Request) {
	if req.Method != http.MethodPost {
		oauthError(w, 405, "invalid_request", "POST required")
		return
	}
	if err := req.ParseForm(); err != nil {
		oauthError(w, 400, "invalid_request", "malformed form body")
		return
	}
	switch g := req.PostForm.Get("grant_type"); g {
	case "urn:ietf:params:oauth:grant-type:jwt-bearer":
		if err := s.verifyJWT(req.PostForm.Get("assertion")); err != "" {
			oauthError(w, 400, "invalid_grant", err)
			return
		}
	case "refresh_token":
		f := req.PostForm
		if f.Get("client_id") != UserClientID || f.Get("client_secret") != UserClientSecret {
			oauthError(w, 401, "invalid_client", "The OAuth client was not found.")
			return
		}
		if f.Get("refresh_token") != UserRefreshToken {
			oauthError(w, 400, "invalid_grant", "Token has been expired or revoked.")
			return
		}
	default:
		oauthError(w, 400, "unsupported_grant_type", "Invalid grant_type: "+g)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	json.NewEncoder(w).Encode(map[string]any{"access_token": s.mint(), "expires_in": 3599, "token_type": "Bearer"})
}

// mint records and returns a new access token.
func (s *Server) mint() string {
	tok := "ya29.standin-" + randomHex(24)
	s.mu.Lock()
	s.tokens = append(s.tokens, tok)
	s.mu.Unlock()
	return tok
}

// metadata answers the metadata server's project ID and token requests.
func (s *Server) metadata(w http.ResponseWriter, req *http.Request, path string) {
	w.Header().Set("Metadata-Flavor", "Google")
	if req.Header.Get("Metadata-Flavor") != "Google" {
		http.Error(w, "Missing required header: Metadata-Flavor", http.StatusForbidden)
		return
	}
	switch path {
	case "project/project-id":
		io.WriteString(w, s.Project)
	case "instance/service-accounts/default/token":
		if !strings.Contains(","+req.URL.Query().Get("scopes")+",", ",https://www.googleapis.com/auth/cloud-platform,") {
			http.Error(w, "the instance's service account lacks the requested scopes", http.StatusForbidden)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"access_token": s.mint(), "expires_in": 3599, "token_type": "Bearer"})
	default:
		http.NotFound(w, req)
	}
}

func randomHex(n int) string {
	b := make([]byte, n/2)
	rand.Read(b)
	return fmt.Sprintf("%x", b)
}

func oauthError(w http.ResponseWriter, status int, code, desc string) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]string{"error": code, "error_description": desc})
}

// verifyJWT checks the assertion's signature and claims; "" means valid.
func (s *Server) verifyJWT(assertion string) string {
	parts := strings.Split(assertion, ".")
	if len(parts) != 3 {
		return "Invalid JWT: Token must be a short-lived token and in a reasonable timeframe"
	}
	var head struct {
		Alg string `json:"alg"`
		Kid string `json:"kid"`
	}
	var claims struct {
		Iss   string `json:"iss"`
		Scope string `json:"scope"`
		Aud   string `json:"aud"`
		Iat   int64  `json:"iat"`
		Exp   int64  `json:"exp"`
	}
	if decodeSegment(parts[0], &head) != nil || decodeSegment(parts[1], &claims) != nil {
		return "Invalid JWT: malformed header or claims"
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if err != nil || head.Alg != "RS256" || rsa.VerifyPKCS1v15(&s.key.PublicKey, crypto.SHA256, sum[:], sig) != nil {
		return "Invalid JWT Signature."
	}
	now := s.now().Unix()
	switch {
	case head.Kid != "" && head.Kid != s.keyID:
		return "Invalid JWT Signature."
	case claims.Iss != s.Email:
		return "Invalid issuer: " + claims.Iss
	case claims.Aud != s.TokenURI():
		return "Invalid JWT audience: " + claims.Aud
	case !strings.Contains(" "+claims.Scope+" ", " https://www.googleapis.com/auth/cloud-platform "):
		return "Invalid OAuth scope or ID token audience provided."
	case claims.Iat > now+300 || claims.Iat < now-3600 || claims.Exp <= now || claims.Exp-claims.Iat > 3600:
		return "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim."
	}
	return ""
}

func decodeSegment(seg string, v any) error {
	b, err := base64.RawURLEncoding.DecodeString(seg)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

var apiPath = regexp.MustCompile(`^/v1/projects/([^/]+)/locations/([a-z0-9-]+)/publishers/(google|anthropic)/models/([^/:]+):(generateContent|rawPredict)$`)

// api checks the bearer token and the project, then applies the model
// API's rules.
func (s *Server) api(w http.ResponseWriter, req *http.Request) {
	body := s.Read(req)
	w, done := standinlog.Wrap(w, req, body, s.OnRequest)
	defer done()
	m := apiPath.FindStringSubmatch(req.URL.Path)
	if req.Method != http.MethodPost || m == nil || (m[3] == "google") != (m[5] == "generateContent") {
		geminitest.WriteError(w, &geminitest.Error{Code: 404, Status: "NOT_FOUND", Message: "The requested URL " + req.URL.Path + " was not found on this server."})
		return
	}
	if e := s.authorized(req.Header.Get("Authorization"), m[1]); e != nil {
		geminitest.WriteError(w, e)
		return
	}
	if m[3] == "anthropic" {
		s.rawPredict(w, req, body, m[4])
		return
	}
	if e := geminitest.CheckContentType(req.Header); e != nil {
		geminitest.WriteError(w, e)
		return
	}
	r, e := geminitest.Check(body, m[4], true)
	if e != nil {
		geminitest.WriteError(w, e)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.Write(geminitest.Reply(r))
}

// authorized requires a bearer token the stand-in minted, and its project.
// https://cloud.google.com/vertex-ai/docs/reference/rest#authentication
func (s *Server) authorized(header, project string) *geminitest.Error {
	tok, ok := strings.CutPrefix(header, "Bearer ")
	s.mu.Lock()
	known := false
	for _, t := range s.tokens {
		known = known || (ok && t == tok)
	}
	s.mu.Unlock()
	if !known {
		return &geminitest.Error{Code: 401, Status: "UNAUTHENTICATED", Message: "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project."}
	}
	if project != s.Project {
		return &geminitest.Error{Code: 403, Status: "PERMISSION_DENIED", Message: fmt.Sprintf("Permission 'aiplatform.endpoints.predict' denied on resource '//aiplatform.googleapis.com/projects/%s/locations/global' (or it may not exist).", project)}
	}
	return nil
}

// rawPredict serves an Anthropic model: the Messages API body in Vertex's
// form, answered as the Messages API answers.
func (s *Server) rawPredict(w http.ResponseWriter, req *http.Request, body []byte, model string) {
	if e := anthropictest.CheckContentType(req.Header); e != nil {
		anthropictest.WriteError(w, e)
		return
	}
	r, e := anthropictest.Check(body, model)
	if e != nil {
		anthropictest.WriteError(w, e)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(anthropictest.Reply(r))
}
