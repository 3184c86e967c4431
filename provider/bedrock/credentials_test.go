package bedrock_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/redact"
	"github.com/promptcanary/promptcanary/provider"
	"github.com/promptcanary/promptcanary/provider/bedrock"
	"github.com/promptcanary/promptcanary/provider/bedrock/bedrocktest"
	"github.com/promptcanary/promptcanary/provider/internal/providertest"
)

// TestSessionToken signs with temporary credentials: the token is sent
// and signed, and neither it nor the secret key reaches an error or the
// recorded answer; Open registered both with the scrubber.
func TestSessionToken(t *testing.T) {
	srv := standin(t, bedrocktest.Session)
	set := redact.New()
	p := open(t, llama, nil, set)
	resp, err := p.Generate(context.Background(), providertest.NewRequest(promptcanary.Prompt{Text: "hi"}, defaults()))
	if err != nil {
		t.Fatal(err)
	}
	k := bedrocktest.Session
	if got := srv.Calls()[0].Header.Get("X-Amz-Security-Token"); got != k.SessionToken {
		t.Errorf("sent token %q", got)
	}
	if got := set.String(k.SessionToken + " " + k.SecretAccessKey); got != "[REDACTED] [REDACTED]" {
		t.Errorf("Open registered too few secrets: %q", got)
	}
	for _, s := range []string{k.SessionToken, k.SecretAccessKey} {
		if strings.Contains(string(resp.RawResponse), s) {
			t.Error("the raw response holds a secret")
		}
	}
	// A failed call's message holds neither.
	srv.Script = func(bedrocktest.Call) *bedrocktest.Reply {
		return &bedrocktest.Reply{Status: 400, ErrorType: "ValidationException", Message: "bad token " + k.SessionToken + " key " + k.SecretAccessKey}
	}
	_, err = p.Generate(context.Background(), providertest.NewRequest(promptcanary.Prompt{Text: "hi"}, defaults()))
	providertest.CheckError(t, err, providertest.WantError{Status: 400, Msg: "bad token [REDACTED] key [REDACTED]"}, k.SessionToken, k.SecretAccessKey)
}

// TestRefusedSignatures: a wrong secret key, a missing session token, a
// clock off by ten minutes and another region are refused with 403, as
// AWS refuses them, and the error says what to check.
func TestRefusedSignatures(t *testing.T) {
	tests := []struct {
		name string
		key  bedrocktest.Key
		env  map[string]string
		skew time.Duration
		msg  string
		hint string // "" means the credentials hint
	}{
		{name: "wrong secret key", key: bedrocktest.Static, env: map[string]string{"AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYWRONGKEYXX"}, msg: "InvalidSignatureException: The request signature we calculated does not match"},
		{name: "unknown key", key: bedrocktest.Static, env: map[string]string{"AWS_ACCESS_KEY_ID": "AKIAUNKNOWNKEY000000"}, msg: "UnrecognizedClientException: The security token included in the request is invalid."},
		{name: "no session token", key: bedrocktest.Session, env: map[string]string{"AWS_SESSION_TOKEN": ""}, msg: "The security token included in the request is invalid."},
		{name: "clock behind", key: bedrocktest.Static, skew: 10 * time.Minute, msg: "Signature expired"},
		{name: "other region", key: bedrocktest.Static, env: map[string]string{"AWS_REGION": "eu-west-1"}, msg: "Credential should be scoped to a valid region.", hint: "region: setting"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := standin(t, tc.key)
			srv.Now = func() time.Time { return time.Now().Add(tc.skew) }
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			_, err := generate(t, claude, promptcanary.Prompt{Text: "hi"}, defaults())
			secrets := []string{tc.key.SecretAccessKey}
			if tc.key.SessionToken != "" {
				secrets = append(secrets, tc.key.SessionToken)
			}
			providertest.CheckError(t, err, providertest.WantError{Status: 403, Msg: tc.msg}, secrets...)
			if tc.hint == "" {
				providertest.ErrorContains(t, err, []string{"check the AWS credentials"})
			} else {
				providertest.ErrorContains(t, err, []string{tc.hint, "AWS_REGION"})
				if strings.Contains(err.Error(), "check the AWS credentials") {
					t.Errorf("got %v, want the region hint alone", err)
				}
			}
			if len(srv.Calls()) != 0 {
				t.Error("the stand-in accepted the call")
			}
		})
	}
}

// TestAccessDenied: a 403 for a model the account may not use names the
// fix, which is not the credentials.
func TestAccessDenied(t *testing.T) {
	srv := standin(t, bedrocktest.Static)
	srv.Script = func(bedrocktest.Call) *bedrocktest.Reply {
		return &bedrocktest.Reply{Status: 403, ErrorType: "AccessDeniedException", Message: "You don't have access to the model with the specified model ID."}
	}
	_, err := generate(t, claude, promptcanary.Prompt{Text: "hi"}, defaults())
	providertest.CheckError(t, err, providertest.WantError{Status: 403, Msg: "request access to the model in the Bedrock console"})
	if strings.Contains(err.Error(), "check the AWS credentials") || strings.Contains(err.Error(), "API key") {
		t.Errorf("got %q, want no credentials hint", err)
	}
}

// TestEndpointVariables: base_url wins over AWS_ENDPOINT_URL_BEDROCK_RUNTIME,
// which wins over AWS_ENDPOINT_URL; AWS_IGNORE_CONFIGURED_ENDPOINT_URLS
// turns the variables off (the region's endpoint is then called, which
// the test only checks through Check's parse, calling nothing).
func TestEndpointVariables(t *testing.T) {
	srv := standin(t, bedrocktest.Static)
	t.Setenv(bedrock.EndpointEnv, "")
	t.Setenv(bedrock.GlobalEndpointEnv, srv.URL)
	if _, err := generate(t, llama, promptcanary.Prompt{Text: "hi"}, defaults()); err != nil {
		t.Fatalf("AWS_ENDPOINT_URL: %v", err)
	}
	t.Setenv(bedrock.EndpointEnv, "ftp://wrong")
	if err := provider.Check("bedrock/"+llama, provider.Options{}); err == nil || !strings.Contains(err.Error(), "AWS_ENDPOINT_URL_BEDROCK_RUNTIME: want an http or https URL") {
		t.Errorf("got %v, want the bad endpoint variable refused", err)
	}
	t.Setenv("AWS_IGNORE_CONFIGURED_ENDPOINT_URLS", "true")
	if err := provider.Check("bedrock/"+llama, provider.Options{}); err != nil {
		t.Errorf("ignored variables: got %v", err)
	}
	if err := provider.Check("bedrock/"+llama, provider.Options{Settings: map[string]any{"base_url": srv.URL}}); err != nil {
		t.Errorf("base_url: got %v", err)
	}
}

// TestUnsigned: a request without a signature is refused (the stand-in
// is not a fake that accepts anything).
func TestUnsigned(t *testing.T) {
	srv := bedrocktest.Start("")
	defer srv.Close()
	resp, err := srv.Client().Post(srv.URL+"/model/us.meta.llama3-3-70b-instruct-v1%3A0/converse", "application/json", strings.NewReader(`{"messages":[{"role":"user","content":[{"text":"hi"}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 403 || !strings.HasPrefix(resp.Header.Get("X-Amzn-Errortype"), "MissingAuthenticationTokenException") {
		t.Errorf("got %d %q, want 403 MissingAuthenticationTokenException", resp.StatusCode, resp.Header.Get("X-Amzn-Errortype"))
	}
}

// TestProfileFiles reads the credentials and the region from a profile of
// shared config and credentials files, chosen by the profile: setting.
func TestProfileFiles(t *testing.T) {
	srv := standin(t, bedrocktest.Static)
	dir := t.TempDir()
	k := bedrocktest.Static
	write(t, filepath.Join(dir, "config"), "[profile canary]\nregion = us-east-1\n")
	write(t, filepath.Join(dir, "credentials"), "[canary]\naws_access_key_id = "+k.AccessKeyID+"\naws_secret_access_key = "+k.SecretAccessKey+"\n")
	for _, v := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_REGION"} {
		t.Setenv(v, "")
	}
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(dir, "config"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(dir, "credentials"))
	set := redact.New()
	p := open(t, claude, map[string]any{"profile": "canary"}, set)
	if _, err := p.Generate(context.Background(), providertest.NewRequest(promptcanary.Prompt{Text: "hi"}, defaults())); err != nil {
		t.Fatal(err)
	}
	if set.String(k.SecretAccessKey) != "[REDACTED]" {
		t.Error("the profile's secret key was not registered")
	}
	if len(srv.Calls()) != 1 {
		t.Errorf("the stand-in accepted %d calls, want 1", len(srv.Calls()))
	}
	// A profile the files do not have fails at open, with a hint.
	_, err := provider.Open("bedrock/"+claude, provider.Options{Settings: map[string]any{"profile": "nope"}})
	wantHinted(t, err, "load the AWS configuration", "AWS_CONFIG_FILE")
}

// TestProfileEnv: AWS_PROFILE names the profile, its temporary
// credentials (with a session token) are used and registered, and the
// region comes from AWS_DEFAULT_REGION.
func TestProfileEnv(t *testing.T) {
	srv := standin(t, bedrocktest.Session)
	dir := t.TempDir()
	k := bedrocktest.Session
	write(t, filepath.Join(dir, "config"), "[profile ops]\noutput = json\n")
	write(t, filepath.Join(dir, "credentials"), "[ops]\naws_access_key_id = "+k.AccessKeyID+"\naws_secret_access_key = "+k.SecretAccessKey+"\naws_session_token = "+k.SessionToken+"\n")
	for _, v := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_REGION"} {
		t.Setenv(v, "")
	}
	t.Setenv("AWS_DEFAULT_REGION", bedrocktest.Region)
	t.Setenv("AWS_PROFILE", "ops")
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(dir, "config"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(dir, "credentials"))
	set := redact.New()
	p := open(t, llama, nil, set)
	if _, err := p.Generate(context.Background(), providertest.NewRequest(promptcanary.Prompt{Text: "hi"}, defaults())); err != nil {
		t.Fatal(err)
	}
	if got := srv.Calls()[0].Header.Get("X-Amz-Security-Token"); got != k.SessionToken {
		t.Errorf("sent token %q, want the profile's", got)
	}
	if got := set.String(k.SessionToken); got != "[REDACTED]" {
		t.Errorf("the profile's session token was not registered: %q", got)
	}
}

// TestMissingCredentials: with no credentials anywhere (and no instance
// metadata service) Open fails, before any call, with a hint; with no
// region likewise.
func TestMissingCredentials(t *testing.T) {
	srv := standin(t, bedrocktest.Static)
	t.Setenv("AWS_ACCESS_KEY_ID", "")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "")
	_, err := provider.Open("bedrock/"+claude, provider.Options{})
	wantHinted(t, err, "no AWS credentials", "AWS_ACCESS_KEY_ID")

	t.Setenv("AWS_ACCESS_KEY_ID", bedrocktest.Static.AccessKeyID)
	t.Setenv("AWS_SECRET_ACCESS_KEY", bedrocktest.Static.SecretAccessKey)
	t.Setenv("AWS_REGION", "")
	_, err = provider.Open("bedrock/"+claude, provider.Options{})
	wantHinted(t, err, "no AWS region", "export AWS_REGION")
	if len(srv.Calls()) != 0 {
		t.Error("a call was made")
	}
}

// wantHinted checks err's message and that a hint holds hint.
func wantHinted(t *testing.T, err error, msg, hint string) {
	t.Helper()
	if err == nil || !strings.Contains(err.Error(), msg) {
		t.Fatalf("got %v, want %q", err, msg)
	}
	var h interface{ Hints() []string }
	if !errors.As(err, &h) || !strings.Contains(strings.Join(h.Hints(), "\n"), hint) {
		t.Errorf("got hints %v, want one with %q", h, hint)
	}
}

// TestCheck checks settings and model as Open does, without credentials
// or a region.
func TestCheck(t *testing.T) {
	for _, v := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_REGION", "AWS_DEFAULT_REGION", "AWS_PROFILE"} {
		t.Setenv(v, "")
	}
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	if err := provider.Check("bedrock/"+llama, provider.Options{Settings: map[string]any{"region": "eu-west-3", "profile": "prod"}}); err != nil {
		t.Errorf("got %v, want no error", err)
	}
	tests := []struct {
		model    string
		settings map[string]any
		want     string
	}{
		{llama, map[string]any{"regoin": "us-east-1"}, `unknown setting "regoin" (did you mean region?)`},
		{llama, map[string]any{"region": "US East"}, "setting region: want an AWS region such as us-east-1"},
		{llama, map[string]any{"structured_output": "json"}, "setting structured_output: want native, tool or prompt"},
		{llama, map[string]any{"base_url": "ftp://x"}, "setting base_url: want an http or https URL"},
		{"us.meta llama", nil, "invalid model id"},
	}
	for _, tc := range tests {
		err := provider.Check("bedrock/"+tc.model, provider.Options{Settings: tc.settings})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: got %v, want %q", tc.settings, err, tc.want)
		}
	}
}

// TestRedirects: the session token and a credential header never follow a
// redirect to another origin, while one within the origin is followed.
func TestRedirects(t *testing.T) {
	standin(t, bedrocktest.Session)
	ok := `{"output":{"message":{"role":"assistant","content":[{"text":"hi"}]}},"stopReason":"end_turn","usage":{"inputTokens":1,"outputTokens":1,"totalTokens":2},"metrics":{"latencyMs":1}}`
	providertest.CheckRedirects(t, func(t *testing.T, baseURL string) provider.Provider {
		return open(t, llama, map[string]any{"base_url": baseURL, "headers": map[string]any{"X-Gateway-Token": providertest.RedirectToken}}, redact.New())
	}, ok, bedrocktest.Session.SessionToken, providertest.RedirectToken)
}

// TestDeadline and server down: the engine's deadline ends a call, and a
// refused connection is retryable; no secret in either error.
func TestDeadline(t *testing.T) {
	standin(t, bedrocktest.Session)
	k := bedrocktest.Session
	call := func(ctx context.Context, base string) error {
		p, err := bedrock.Open(llama, provider.Options{Settings: map[string]any{"base_url": base}})
		if err != nil {
			return err
		}
		_, err = p.Generate(ctx, providertest.NewRequest(promptcanary.Prompt{Text: "hi"}, defaults()))
		return err
	}
	providertest.CheckDeadline(t, 200*time.Millisecond, call, k.SecretAccessKey, k.SessionToken)
	providertest.CheckServerDown(t, func(base string) error { return call(context.Background(), base) }, k.SecretAccessKey, k.SessionToken)
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestCredentialProcessOutputWithheld: a profile's credential_process
// whose output the SDK cannot parse fails at open without the output,
// which the SDK quotes whole, secret key included.
func TestCredentialProcessOutputWithheld(t *testing.T) {
	standin(t, bedrocktest.Static)
	dir := t.TempDir()
	const secret = "procSecretKey0123456789abcdefghijklmnop"
	script := filepath.Join(dir, "creds.sh")
	write(t, script, "#!/bin/sh\necho '{\"Version\": 1, \"AccessKeyId\": \"AKIAIOSFODNN7EXAMPLE\", \"SecretAccessKey\": \""+secret+"\", \"SessionToken\": 5}'\n")
	if err := os.Chmod(script, 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "config"), "[profile proc]\nregion = us-east-1\ncredential_process = "+script+"\n")
	for _, v := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"} {
		t.Setenv(v, "")
	}
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(dir, "config"))
	_, err := provider.Open("bedrock/"+claude, provider.Options{Settings: map[string]any{"profile": "proc"}})
	wantHinted(t, err, "process output: (withheld", "AWS_PROFILE")
	if strings.Contains(err.Error(), secret) || !strings.Contains(err.Error(), ", error: ") {
		t.Errorf("got %q, want the parse error without the process output", err)
	}
}
