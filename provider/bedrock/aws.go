package bedrock

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"

	"github.com/promptcanary/promptcanary/provider"
	"github.com/promptcanary/promptcanary/provider/internal/hint"
)

// The environment variables this client reads itself; the SDK's default
// credential chain reads its own (AWS_ACCESS_KEY_ID, AWS_PROFILE,
// AWS_CONFIG_FILE, AWS_WEB_IDENTITY_TOKEN_FILE, …) from the process.
const (
	// EndpointEnv is the SDK's service-specific endpoint variable for
	// bedrock-runtime, read when base_url is not set.
	// https://docs.aws.amazon.com/sdkref/latest/guide/feature-ss-endpoints.html
	EndpointEnv = "AWS_ENDPOINT_URL_BEDROCK_RUNTIME"
	// GlobalEndpointEnv is the SDK's endpoint variable for every service.
	GlobalEndpointEnv = "AWS_ENDPOINT_URL"
)

// credentialTimeout bounds how long Open waits for the first credentials
// (an SSO or STS exchange, or the instance metadata service).
const credentialTimeout = 30 * time.Second

// credentialsHint is the hint of every credentials problem.
const credentialsHint = "Bedrock uses the AWS SDK's default credentials: export AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN for temporary ones), or AWS_PROFILE (or the profile: setting) naming a profile of ~/.aws/config; after 'aws sso login' for an SSO profile"

// Check checks the model and settings as Open does, with the same
// messages, but needs no credentials, reads no AWS config file and makes
// no network call: the region and profile are the environment's, not the
// suite's, and are checked when the provider is opened.
func Check(model string, opts provider.Options) error {
	s, err := readSettings(opts.Settings)
	if err != nil {
		return err
	}
	if err := checkModel(model); err != nil {
		return err
	}
	_, err = checkEndpoint(s, opts)
	return err
}

// endpoint is the configured endpoint, "" for the region's default, and
// where it comes from (for messages). The endpoint variables are ignored,
// as by the SDKs, when AWS_IGNORE_CONFIGURED_ENDPOINT_URLS is true.
func endpoint(s settings, opts provider.Options) (string, string) {
	if s.baseURL != "" {
		return s.baseURL, "setting base_url"
	}
	if strings.EqualFold(strings.TrimSpace(opts.Env("AWS_IGNORE_CONFIGURED_ENDPOINT_URLS")), "true") {
		return "", ""
	}
	for _, name := range []string{EndpointEnv, GlobalEndpointEnv} {
		if v := strings.TrimSpace(opts.Env(name)); v != "" {
			return v, name
		}
	}
	return "", ""
}

// checkEndpoint parses the configured endpoint, naming its source in the
// error.
func checkEndpoint(s settings, opts provider.Options) (string, error) {
	raw, source := endpoint(s, opts)
	if raw == "" {
		return "", nil
	}
	r := root
	r.Source = source
	_, err := r.Parse(raw)
	return raw, err
}

// Open opens "bedrock/MODEL_ID" from canary.yaml settings and the
// environment. It loads the AWS configuration and retrieves the first
// credentials (from the environment or files, or from SSO, STS or the
// instance metadata service when the configuration says so), so that
// missing credentials fail here, before any call, with a hint.
func Open(model string, opts provider.Options) (provider.Provider, error) {
	s, err := readSettings(opts.Settings)
	if err != nil {
		return nil, err
	}
	if err := checkModel(model); err != nil {
		return nil, err
	}
	base, err := checkEndpoint(s, opts)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), credentialTimeout)
	defer cancel()
	cfg, err := loadAWS(ctx, s, opts)
	if err != nil {
		return nil, err
	}
	creds, err := cfg.Credentials.Retrieve(ctx)
	if err != nil {
		return nil, hint.New(fmt.Errorf("no AWS credentials: %s", firstLine(err)), credentialsHint)
	}
	opts.Secrets.Add(creds.SecretAccessKey, creds.SessionToken)
	return New(Config{
		Model:       model,
		Region:      cfg.Region,
		BaseURL:     base,
		Credentials: cfg.Credentials,
		Header:      s.header,
		Structured:  s.structured,
		HTTPClient:  opts.HTTPClient,
		Secrets:     opts.Secrets,
	})
}

// loadAWS loads the SDK's configuration with the settings' region and
// profile, and checks that it names a region.
func loadAWS(ctx context.Context, s settings, opts provider.Options) (aws.Config, error) {
	var load []func(*config.LoadOptions) error
	region := s.region
	if region == "" {
		region = firstNonEmpty(opts.Env("AWS_REGION"), opts.Env("AWS_DEFAULT_REGION"))
	}
	if region != "" {
		load = append(load, config.WithRegion(region))
	}
	if s.profile != "" {
		load = append(load, config.WithSharedConfigProfile(s.profile))
	}
	cfg, err := config.LoadDefaultConfig(ctx, load...)
	if err != nil {
		return aws.Config{}, hint.New(fmt.Errorf("load the AWS configuration: %s", firstLine(err)),
			"check the profile (the profile: setting or AWS_PROFILE) and the files AWS_CONFIG_FILE and AWS_SHARED_CREDENTIALS_FILE name (default ~/.aws/config and ~/.aws/credentials)")
	}
	if cfg.Region == "" {
		return aws.Config{}, hint.New(errors.New("no AWS region"),
			"set region: in the provider's entry of canary.yaml, export AWS_REGION, or give the profile a region")
	}
	if !regionPattern.MatchString(cfg.Region) {
		return aws.Config{}, fmt.Errorf("invalid AWS region %q: want a region such as us-east-1", cfg.Region)
	}
	if cfg.Credentials == nil {
		return aws.Config{}, hint.New(errors.New("no AWS credentials"), credentialsHint)
	}
	return cfg, nil
}

// sign is the httpc Authorize hook: it signs req with SigV4 over the
// SHA-256 of body, with the current credentials (refreshed by the SDK's
// cache when they expire), and registers their secrets first.
func (c *Client) sign(req *http.Request, body []byte) error {
	creds, err := c.creds.Retrieve(req.Context())
	if err != nil {
		return &provider.Error{Message: c.http.Redact("no AWS credentials: " + firstLine(err) + " (" + credentialsHint + ")")}
	}
	c.register(creds)
	sum := sha256.Sum256(body)
	if err := c.signer.SignHTTP(req.Context(), creds, req, hex.EncodeToString(sum[:]), SigningService, c.region, c.now()); err != nil {
		return &provider.Error{Message: c.http.Redact("sign the request: " + err.Error())}
	}
	return nil
}

// register adds the secret key and session token of creds to the
// scrubber, once per set of credentials. The access key id is not a
// secret (it names the key in AWS's own error messages and logs) and is
// left readable.
func (c *Client) register(creds aws.Credentials) {
	key := creds.AccessKeyID + "\x00" + creds.SessionToken
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.seen == key {
		return
	}
	c.secrets.Add(creds.SecretAccessKey, creds.SessionToken)
	c.seen = key
}

// firstLine is the first line of err's message: the SDK's errors can run
// over several lines of nested operation errors. The output of a
// credential_process the SDK could not parse, which it quotes whole
// ("parse failed of process output: {…SecretAccessKey…}, error: …"), is
// withheld: it holds the secret key, never registered since never parsed.
func firstLine(err error) string {
	msg := err.Error()
	const quoted = "process output: "
	if i := strings.Index(msg, quoted); i >= 0 {
		rest := msg[i+len(quoted):]
		tail := ""
		if j := strings.LastIndex(rest, ", error: "); j >= 0 {
			tail = rest[j:]
		}
		msg = msg[:i+len(quoted)] + "(withheld: it may hold the secret key)" + tail
	}
	s, _, _ := strings.Cut(msg, "\n")
	return s
}

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if v = strings.TrimSpace(v); v != "" {
			return v
		}
	}
	return ""
}
