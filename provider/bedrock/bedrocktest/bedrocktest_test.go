package bedrocktest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// post sends body to model's converse path, signed with key by the SDK's
// signer, and returns the status, the error type and the message.
func post(t *testing.T, s *Server, model, body string, key Key) (int, string, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, s.URL+"/model/"+strings.ReplaceAll(model, ":", "%3A")+"/converse", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	sum := sha256.Sum256([]byte(body))
	creds := aws.Credentials{AccessKeyID: key.AccessKeyID, SecretAccessKey: key.SecretAccessKey, SessionToken: key.SessionToken}
	if err := v4.NewSigner().SignHTTP(context.Background(), creds, req, hex.EncodeToString(sum[:]), "bedrock", s.Region, time.Now()); err != nil {
		t.Fatal(err)
	}
	resp, err := s.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	var e struct {
		Message string `json:"message"`
	}
	json.Unmarshal(data, &e)
	typ, _, _ := strings.Cut(resp.Header.Get("X-Amzn-Errortype"), ":")
	return resp.StatusCode, typ, e.Message
}

const (
	sonnet45 = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
	opus41   = "us.anthropic.claude-opus-4-1-20250805-v1:0"
	llama33  = "us.meta.llama3-3-70b-instruct-v1:0"
	hi       = `{"role":"user","content":[{"text":"hi"}]}`
	weather  = `{"tools":[{"toolSpec":{"name":"get_weather","inputSchema":{"json":{"type":"object","properties":{}}}}}]`
)

// TestRefuses: the stand-in refuses what Bedrock refuses, with its
// message, and accepts the well-formed requests beside them.
func TestRefuses(t *testing.T) {
	s := Start("")
	defer s.Close()
	tests := []struct {
		name, model, body, want string
	}{
		{"ok", sonnet45, `{"messages":[` + hi + `],"inferenceConfig":{"temperature":0,"maxTokens":1024}}`, ""},
		{"ok llama", llama33, `{"messages":[` + hi + `],"toolConfig":` + weather + `}}`, ""},
		{"no messages", sonnet45, `{}`, "Value at 'messages' failed to satisfy constraint"},
		{"unknown member", sonnet45, `{"messages":[` + hi + `],"seed":42}`, `Unknown field "seed"`},
		{"assistant first", sonnet45, `{"messages":[{"role":"assistant","content":[{"text":"x"}]}]}`, "must start with a user message"},
		{"roles repeat", sonnet45, `{"messages":[` + hi + `,` + hi + `]}`, "must alternate between user and assistant roles"},
		{"blank text", sonnet45, `{"messages":[{"role":"user","content":[{"text":" "}]}]}`, "is blank"},
		{"temperature above 1", sonnet45, `{"messages":[` + hi + `],"inferenceConfig":{"temperature":1.5}}`, "inferenceConfig.temperature"},
		{"maxTokens 0", sonnet45, `{"messages":[` + hi + `],"inferenceConfig":{"maxTokens":0}}`, "inferenceConfig.maxTokens"},
		{"temperature and topP on Opus 4.1", opus41, `{"messages":[` + hi + `],"inferenceConfig":{"temperature":0,"topP":0.9}}`, "cannot both be specified"},
		{"thinking with temperature 0", sonnet45, `{"messages":[` + hi + `],"inferenceConfig":{"temperature":0,"maxTokens":4096},"additionalModelRequestFields":{"thinking":{"type":"enabled","budget_tokens":2048}}}`, "may only be set to 1 when thinking is enabled"},
		{"thinking budget above max", sonnet45, `{"messages":[` + hi + `],"inferenceConfig":{"maxTokens":1024},"additionalModelRequestFields":{"thinking":{"type":"enabled","budget_tokens":2048}}}`, "must be greater than `thinking.budget_tokens`"},
		{"any on Llama", llama33, `{"messages":[` + hi + `],"toolConfig":` + weather + `,"toolChoice":{"any":{}}}}`, "doesn't support the toolConfig.toolChoice.any field"},
		{"tool choice names no tool", sonnet45, `{"messages":[` + hi + `],"toolConfig":` + weather + `,"toolChoice":{"tool":{"name":"x"}}}}`, "names no tool"},
		{"toolUse without toolConfig", sonnet45, `{"messages":[` + hi + `,{"role":"assistant","content":[{"toolUse":{"toolUseId":"a","name":"t","input":{}}}]}]}`, "toolConfig field must be defined"},
		{"result of no call", sonnet45, `{"messages":[` + hi + `,{"role":"assistant","content":[{"text":"x"}]},{"role":"user","content":[{"toolResult":{"toolUseId":"a","content":[{"text":"r"}]}}]}],"toolConfig":` + weather + `}}`, "matches no toolUse block"},
		{"bare profile-only id", "anthropic.claude-sonnet-4-5-20250929-v1:0", `{"messages":[` + hi + `]}`, "with on-demand throughput isn’t supported"},
		{"native JSON on Llama", llama33, `{"messages":[` + hi + `],"outputConfig":{"textFormat":{"type":"json_schema","structure":{"jsonSchema":{"schema":"{}"}}}}}`, "doesn't support the outputConfig.textFormat field"},
		{"schema not a string", sonnet45, `{"messages":[` + hi + `],"outputConfig":{"textFormat":{"type":"json_schema","structure":{"jsonSchema":{"schema":{}}}}}}`, "must be a string"},
		{"maxTokens above Llama's limit", llama33, `{"messages":[` + hi + `],"inferenceConfig":{"maxTokens":4096}}`, "exceeds the model limit of 2048"},
		{"maxTokens above Opus 4.1's limit", opus41, `{"messages":[` + hi + `],"inferenceConfig":{"maxTokens":64000}}`, "exceeds the model limit of 32000"},
		{"ok Sonnet 4.5 at its limit", sonnet45, `{"messages":[` + hi + `],"inferenceConfig":{"maxTokens":64000}}`, ""},
		{"anthropic field on Llama", llama33, `{"messages":[` + hi + `],"additionalModelRequestFields":{"thinking":{"type":"enabled"}}}`, "extraneous key [thinking]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			status, typ, msg := post(t, s, tc.model, tc.body, Static)
			if tc.want == "" {
				if status != 200 {
					t.Fatalf("got %d %s %q, want 200", status, typ, msg)
				}
				return
			}
			if status != 400 || typ != "ValidationException" || !strings.Contains(msg, tc.want) {
				t.Errorf("got %d %s %q, want 400 ValidationException with %q", status, typ, msg, tc.want)
			}
		})
	}
}

// TestSignatureChecks: a tampered body, another service's scope and a
// session key without its token are refused with AWS's 403s.
func TestSignatureChecks(t *testing.T) {
	s := Start("")
	defer s.Close()
	body := `{"messages":[` + hi + `]}`
	if status, typ, msg := post(t, s, llama33, body, Session); status != 200 {
		t.Fatalf("session key: got %d %s %q", status, typ, msg)
	}
	noToken := Session
	noToken.SessionToken = ""
	if status, typ, _ := post(t, s, llama33, body, noToken); status != 403 || typ != "UnrecognizedClientException" {
		t.Errorf("no token: got %d %s", status, typ)
	}
	// The body changed after signing.
	s.Script = nil
	req, _ := http.NewRequest(http.MethodPost, s.URL+"/model/"+llama33+"/converse", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	sum := sha256.Sum256([]byte(body + " "))
	v4.NewSigner().SignHTTP(context.Background(), aws.Credentials{AccessKeyID: Static.AccessKeyID, SecretAccessKey: Static.SecretAccessKey}, req, hex.EncodeToString(sum[:]), "bedrock", s.Region, time.Now())
	resp, err := s.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 403 || !strings.HasPrefix(resp.Header.Get("X-Amzn-Errortype"), "InvalidSignatureException") {
		t.Errorf("tampered body: got %d %s", resp.StatusCode, resp.Header.Get("X-Amzn-Errortype"))
	}
	if n := len(s.Calls()); n != 1 {
		t.Errorf("accepted %d calls, want 1", n)
	}
}
