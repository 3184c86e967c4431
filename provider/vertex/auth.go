package vertex

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"cloud.google.com/go/auth"
	"cloud.google.com/go/auth/credentials"
	"cloud.google.com/go/compute/metadata"

	"github.com/promptcanary/promptcanary/internal/httpc"
	"github.com/promptcanary/promptcanary/internal/redact"
	"github.com/promptcanary/promptcanary/provider"
	"github.com/promptcanary/promptcanary/provider/internal/hint"
)

// Scope is the OAuth scope of every Vertex AI call.
// https://cloud.google.com/vertex-ai/docs/authentication
const Scope = "https://www.googleapis.com/auth/cloud-platform"

// CredentialsEnv names the credentials file of Application Default
// Credentials.
const CredentialsEnv = "GOOGLE_APPLICATION_CREDENTIALS"

// detect finds Application Default Credentials; tests replace it.
var detect = credentials.DetectDefault

// adcHint says where Application Default Credentials come from.
const adcHint = "set " + CredentialsEnv + " to a service-account key file, or run 'gcloud auth application-default login'"

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
	named := strings.TrimSpace(opts.Env(CredentialsEnv))
	file := named
	if file == "" {
		file = gcloudFile(opts)
	}
	if file != "" {
		addFileSecrets(opts.Secrets, file)
	}
	var creds *auth.Credentials
	var err error
	if named != "" {
		creds, err = fileCredentials(named, d)
	} else {
		creds, err = detect(d)
	}
	if err != nil {
		msg := httpc.RedactSet(opts.Secrets, err.Error())
		if named != "" {
			return nil, fmt.Errorf("read Google credentials from %s: %s (it names a service-account or user credentials JSON file)", CredentialsEnv, msg)
		}
		return nil, fmt.Errorf("no Google Cloud credentials: %s (run 'gcloud auth application-default login', or set %s to a service-account key file)", msg, CredentialsEnv)
	}
	if file != "" {
		if err := checkKey(file); err != nil {
			return nil, err
		}
	}
	return &authorizer{creds: creds, secrets: opts.Secrets}, nil
}

// fileTypes are the credential types a file named by
// GOOGLE_APPLICATION_CREDENTIALS may hold: a service-account key and
// gcloud's user credentials. Other types (external accounts,
// impersonation) make the library fetch URLs or run commands the file
// names, so they are refused rather than trusted unchecked.
// https://pkg.go.dev/cloud.google.com/go/auth/credentials#NewCredentialsFromJSON
var fileTypes = map[credentials.CredType]bool{credentials.ServiceAccount: true, credentials.AuthorizedUser: true}

// fileCredentials reads the credentials file path, whose "type" must be
// one of fileTypes, with that type declared to the library, which checks
// the file against it. Errors name the file and never quote its secrets.
func fileCredentials(path string, d *credentials.DetectOptions) (*auth.Credentials, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var f struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("%s is not a JSON credentials file: %v", path, err)
	}
	if t := credentials.CredType(f.Type); !fileTypes[t] {
		shown := f.Type
		if len(shown) > 64 {
			shown = shown[:64] + "..."
		}
		return nil, fmt.Errorf("%s has credential type %q; only %q (a service-account key) and %q (gcloud auth application-default login) are accepted",
			path, shown, credentials.ServiceAccount, credentials.AuthorizedUser)
	}
	return credentials.NewCredentialsFromJSON(credentials.CredType(f.Type), data, d)
}

// checkKey parses the private key of a service-account key file as
// Google's library does when it signs its first token request, so that a
// damaged key fails when the provider opens, naming the file, rather than
// at every call. A file that is not a service account's is not checked.
// The error never quotes the key.
func checkKey(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil // not the file the library read (a gcloud file that is not there)
	}
	var f struct {
		Type       string `json:"type"`
		PrivateKey string `json:"private_key"`
	}
	if json.Unmarshal(data, &f) != nil || f.Type != "service_account" {
		return nil
	}
	if parseKey([]byte(f.PrivateKey)) {
		return nil
	}
	return hint.New(fmt.Errorf("google credentials %s: the service account's private_key is not a valid PEM RSA or EC private key", path),
		"download a new key for the service account (IAM & Admin > Service Accounts > Keys, or 'gcloud iam service-accounts keys create') and point "+
			CredentialsEnv+" at it; the file must be used as downloaded")
}

// parseKey reports whether key is a private key Google's library can sign
// with: PEM (or bare DER) PKCS#8, PKCS#1 or EC, as its internal.ParseKey.
func parseKey(key []byte) bool {
	if block, _ := pem.Decode(key); block != nil {
		key = block.Bytes
	}
	if _, err := x509.ParsePKCS8PrivateKey(key); err == nil {
		return true
	}
	if _, err := x509.ParsePKCS1PrivateKey(key); err == nil {
		return true
	}
	_, err := x509.ParseECPrivateKey(key)
	return err == nil
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
// token as a secret before it is used. A token endpoint or metadata
// server that is down, unreachable or rate-limited is worth another try;
// refused credentials and a key that cannot sign are not.
func (a *authorizer) authorize(req *http.Request, _ []byte) error {
	tok, err := a.creds.Token(req.Context())
	if err != nil {
		msg := "get a Google access token: " + httpc.RedactSet(a.secrets, err.Error())
		msg = httpc.Truncate(a.secrets, msg, httpc.MaxMessage) + " (" + adcHint + ")"
		return &provider.Error{Message: msg, Retryable: tokenRetryable(err)}
	}
	a.secrets.Add(tok.Value)
	req.Header.Set("Authorization", "Bearer "+tok.Value)
	return nil
}

// tokenRetryable reports whether a failure to get a token may pass: a
// transport error or a timeout, or an HTTP 429 or 5xx answer of the token
// endpoint or the metadata server. Anything else (refused credentials, a
// key that cannot be parsed or sign) fails every call alike.
func tokenRetryable(err error) bool {
	var ae *auth.Error
	if errors.As(err, &ae) && ae.Response != nil {
		return retryableStatus(ae.Response.StatusCode)
	}
	var me *metadata.Error
	if errors.As(err, &me) {
		return retryableStatus(me.Code)
	}
	var ue *url.Error
	var ne net.Error
	return errors.As(err, &ue) || errors.As(err, &ne) ||
		errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)
}

// retryableStatus reports whether an HTTP status is worth another try.
func retryableStatus(code int) bool {
	return code == http.StatusTooManyRequests || code >= 500
}
