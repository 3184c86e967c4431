package vertex

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"cloud.google.com/go/auth"
	"cloud.google.com/go/auth/credentials"

	"github.com/promptcanary/promptcanary/internal/redact"
	"github.com/promptcanary/promptcanary/provider"
	"github.com/promptcanary/promptcanary/provider/internal/httpc"
)

// Scope is the OAuth scope of every Vertex AI call.
// https://cloud.google.com/vertex-ai/docs/authentication
const Scope = "https://www.googleapis.com/auth/cloud-platform"

// CredentialsEnv names the credentials file of Application Default
// Credentials.
const CredentialsEnv = "GOOGLE_APPLICATION_CREDENTIALS"

// detect finds Application Default Credentials; tests replace it.
var detect = credentials.DetectDefault

// authorizer adds a bearer token to each request.
type authorizer struct {
	creds   *auth.Credentials
	secrets *redact.Set
}

// findCredentials finds Application Default Credentials through Google's
// library: the file named by GOOGLE_APPLICATION_CREDENTIALS (read through
// opts.Env), else the library's own search (gcloud's file, the metadata
// server). The secrets of a credentials file are added to opts.Secrets
// before anything else can fail.
func findCredentials(ctx context.Context, opts provider.Options) (*authorizer, error) {
	// Token requests carry credentials in their bodies: a redirect to
	// another origin is refused, as for the API's requests.
	d := &credentials.DetectOptions{Scopes: []string{Scope}, Client: httpc.SameOrigin(opts.HTTPClient)}
	file := strings.TrimSpace(opts.Env(CredentialsEnv))
	if file != "" {
		d.CredentialsFile = file
	} else {
		file = gcloudFile(opts)
	}
	if file != "" {
		addFileSecrets(opts.Secrets, file)
	}
	creds, err := detect(d)
	if err != nil {
		msg := httpc.RedactSet(opts.Secrets, err.Error())
		if d.CredentialsFile != "" {
			return nil, fmt.Errorf("read Google credentials from %s: %s (it names a service-account or user credentials JSON file)", CredentialsEnv, msg)
		}
		return nil, fmt.Errorf("no Google Cloud credentials: %s (run 'gcloud auth application-default login', or set %s to a service-account key file)", msg, CredentialsEnv)
	}
	return &authorizer{creds: creds, secrets: opts.Secrets}, nil
}

// gcloudFile is the path of gcloud's application default credentials,
// where the library looks when GOOGLE_APPLICATION_CREDENTIALS is unset:
// %APPDATA%/gcloud on Windows, $HOME/.config/gcloud elsewhere.
func gcloudFile(opts provider.Options) string {
	const name = "application_default_credentials.json"
	if runtime.GOOS == "windows" {
		if dir := opts.Env("APPDATA"); dir != "" {
			return filepath.Join(dir, "gcloud", name)
		}
		return ""
	}
	home := opts.Env("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	if home == "" {
		return ""
	}
	return filepath.Join(home, ".config", "gcloud", name)
}

// addFileSecrets adds the secrets of a credentials file to set: a
// service account's private key (its body whole and line by line, so a
// piece of it is redacted too), a user's client secret and refresh token. A file that
// cannot be read adds nothing: the library reports the problem.
func addFileSecrets(set *redact.Set, path string) {
	data, err := os.ReadFile(path)
	if err != nil {
		return
	}
	var f struct {
		PrivateKey   string `json:"private_key"`
		ClientSecret string `json:"client_secret"`
		RefreshToken string `json:"refresh_token"`
	}
	if json.Unmarshal(data, &f) != nil {
		return
	}
	set.Add(f.ClientSecret, f.RefreshToken)
	// The key's PEM armour ("-----BEGIN PRIVATE KEY-----") is no secret:
	// registered, its runs would scrub every " private key" from answers
	// and errors. The base64 body is the secret, whole and line by line.
	var body []string
	for _, line := range strings.Split(f.PrivateKey, "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "-----") {
			body = append(body, line)
			set.Add(line)
		}
	}
	set.Add(strings.Join(body, "\n"), strings.Join(body, ""))
}

// project is the project the credentials name ("" when none or unknown).
func (a *authorizer) project(ctx context.Context) string {
	p, err := a.creds.ProjectID(ctx)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(p)
}

// authorize adds "Authorization: Bearer TOKEN" to req, registering the
// token as a secret before it is used. A token endpoint that is down or
// rate-limited is worth another try; refused credentials are not.
func (a *authorizer) authorize(req *http.Request, _ []byte) error {
	tok, err := a.creds.Token(req.Context())
	if err != nil {
		e := &provider.Error{Message: "get a Google access token: " + httpc.RedactSet(a.secrets, err.Error())}
		var ae *auth.Error
		if errors.As(err, &ae) && ae.Response != nil {
			code := ae.Response.StatusCode
			e.Retryable = code == http.StatusTooManyRequests || code >= 500
		} else if !errors.As(err, &ae) {
			e.Retryable = true // a transport error
		}
		e.Message = httpc.Truncate(a.secrets, e.Message, httpc.MaxMessage)
		return e
	}
	a.secrets.Add(tok.Value)
	req.Header.Set("Authorization", "Bearer "+tok.Value)
	return nil
}
