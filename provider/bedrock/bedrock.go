// Package bedrock is the provider client for Amazon Bedrock's Converse
// API, used by "bedrock/MODEL_ID": a foundation model id
// (bedrock/meta.llama3-1-8b-instruct-v1:0), a cross-region inference
// profile (bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0) or an
// ARN.
//
// One call is one POST {endpoint}/model/{modelId}/converse, the model id
// path-escaped as the AWS SDKs escape it, signed with Signature Version 4
// (service "bedrock") by the AWS SDK for Go v2's signer over the
// request's SHA-256. Credentials come from the SDK's default chain
// (environment, shared config and credentials files and their profiles,
// SSO, web identity, ECS, EC2 instance metadata); the request itself is
// built here, so the run engine's retries, budgets and bounds apply as
// to every client. https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html
//
// The conversation is sent as messages: text blocks, assistant toolUse
// blocks and tool results as toolResult blocks of a user message
// (consecutive results in one message). The system prompt is "system";
// temperature and max_tokens go into inferenceConfig (no seed: Converse
// has none). Tools are toolConfig.tools[].toolSpec; tool_choice maps to
// {auto:{}}, {any:{}} for "required" and {tool:{name}} for a tool name,
// which only Anthropic Claude, Amazon Nova and (any) Mistral Large take:
// for another model a forced choice fails the call with a message naming
// the documentation, before anything is sent.
//
// A response_format is sent as Converse's outputConfig.textFormat where
// the model takes it (Claude 4.5 and later, some open-weight models), as
// a forced tool whose input is the answer where the model forces tools
// (earlier Claude, Nova, Mistral Large), and otherwise as an instruction
// appended to the system prompt; the structured_output setting chooses.
//
// Extra parameters: temperature, top_p, max_tokens and stop_sequences go
// into inferenceConfig; guardrailConfig, performanceConfig, serviceTier,
// requestMetadata, outputConfig and additionalModelResponseFieldPaths
// are top-level Converse fields; anything else (top_k, thinking,
// reasoning_config, anthropic_beta…) goes into
// additionalModelRequestFields. A null value removes the parameter.
//
// Settings (the provider's block in canary.yaml):
//
//	region             AWS region; default AWS_REGION, AWS_DEFAULT_REGION, the profile's region
//	profile            shared config profile; default AWS_PROFILE, else "default"
//	base_url           endpoint; default AWS_ENDPOINT_URL_BEDROCK_RUNTIME, AWS_ENDPOINT_URL,
//	                   else https://bedrock-runtime.{region}.amazonaws.com
//	headers            extra request headers (signed with the request)
//	structured_output  native, tool or prompt: how a response_format is sent
package bedrock

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/httpc"
	"github.com/promptcanary/promptcanary/internal/redact"
	"github.com/promptcanary/promptcanary/provider"
	"github.com/promptcanary/promptcanary/provider/internal/apicall"
)

// SigningService is the service name of Bedrock's signatures (the
// credential scope's service), also for the bedrock-runtime endpoint.
const SigningService = "bedrock"

func init() {
	provider.Register("bedrock", Open)
	provider.RegisterChecker("bedrock", Check)
	provider.Declare("bedrock", provider.Capabilities{VendorModels: true, BaseURL: true})
}

// Config configures a Client built with New.
type Config struct {
	// Model is the model id, inference profile id or ARN.
	Model string
	// Region is the AWS region of the endpoint and the signature. Required.
	Region string
	// BaseURL is the endpoint; empty means
	// https://bedrock-runtime.{Region}.amazonaws.com.
	BaseURL string
	// Credentials sign every request. Required.
	Credentials aws.CredentialsProvider
	// Header holds extra headers added to every request.
	Header http.Header
	// Structured is how a response_format is sent: StructuredNative,
	// StructuredTool, StructuredPrompt, or "" for the model's default.
	Structured string
	// HTTPClient sends the requests; nil means a client without a global
	// timeout (the caller's context bounds each call).
	HTTPClient *http.Client
	// Secrets, when set, receives the secret access key and session token
	// of every credentials used, and the credential header values, and
	// redacts them from errors; nil keeps them private.
	Secrets *redact.Set
	// Now is the signing clock; nil means time.Now.
	Now func() time.Time
}

// Client calls the Converse API for one model. It is safe for concurrent use.
type Client struct {
	model  string
	family family
	// structured is the configured structured_output, "" for the default.
	structured string
	url        string
	region     string
	creds      aws.CredentialsProvider
	signer     *v4.Signer
	now        func() time.Time
	http       *httpc.Client
	secrets    *redact.Set

	mu sync.Mutex
	// seen is the last access key id whose secrets were registered.
	seen string
}

var _ provider.Provider = (*Client)(nil)

// New returns a client for cfg.Model. It makes no network call.
func New(cfg Config) (*Client, error) {
	if err := checkModel(cfg.Model); err != nil {
		return nil, err
	}
	if !regionPattern.MatchString(cfg.Region) {
		return nil, errors.New("missing or invalid AWS region: want a region such as us-east-1")
	}
	if cfg.Credentials == nil {
		return nil, errors.New("no AWS credentials provider")
	}
	if err := checkStructured(cfg.Structured); err != nil {
		return nil, err
	}
	raw := cfg.BaseURL
	if raw == "" {
		raw = "https://bedrock-runtime." + cfg.Region + ".amazonaws.com"
	}
	base, err := root.Parse(raw)
	if err != nil {
		return nil, err
	}
	h, extra := httpc.ExtraHeader(cfg.Header, base)
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	c := &Client{
		model:      cfg.Model,
		family:     familyOf(cfg.Model),
		structured: cfg.Structured,
		url:        base.String() + "/model/" + escapePath(cfg.Model) + "/converse",
		region:     cfg.Region,
		creds:      cfg.Credentials,
		signer:     v4.NewSigner(),
		now:        now,
		secrets:    httpc.Secrets(cfg.Secrets, extra...),
	}
	c.http = &httpc.Client{HTTP: cfg.HTTPClient, Header: h, Secrets: c.secrets, Authorize: c.sign}
	return c, nil
}

// Generate sends one prompt and returns the model's answer with what the
// API reported about it. Failures are *provider.Error (or the context's
// error) and never contain a secret key or session token.
func (c *Client) Generate(ctx context.Context, req *provider.Request) (*promptcanary.Response, error) {
	if req == nil || req.Prompt == nil {
		return nil, &provider.Error{Message: "request has no prompt"}
	}
	b, err := c.body(req)
	if err != nil {
		return nil, err
	}
	resp, err := apicall.Do(ctx, c.http, http.MethodPost, c.url, b.fields, everyStatus...)
	if err != nil {
		return nil, hinted(err)
	}
	if resp.Status < 200 || resp.Status > 299 {
		return nil, hinted(c.statusError(resp))
	}
	out, err := decode(resp.Body, b.answerTool)
	if err != nil {
		return nil, err
	}
	out.ResponseID = resp.Header.Get("X-Amzn-Requestid")
	return out, nil
}

// everyStatus makes httpc.Client.Do return every answer, so that
// statusError can read the error type from the x-amzn-ErrorType header.
var everyStatus = func() []int {
	out := make([]int, 0, 500)
	for code := 100; code < 600; code++ {
		out = append(out, code)
	}
	return out
}()

// statusError classifies a Bedrock error answer for the retry policy as
// httpc does (429, 408, 409 and 5xx retryable, Retry-After honoured), with
// the error type of x-amzn-ErrorType before the body's message:
// "ThrottlingException: Too many requests, please wait before trying
// again.".
// https://docs.aws.amazon.com/bedrock/latest/APIReference/CommonErrors.html
func (c *Client) statusError(resp *httpc.Response) *provider.Error {
	code := resp.Status
	msg := httpc.ErrorMessage(resp.Body[:min(len(resp.Body), httpc.MaxErrorBody)])
	if msg == "" {
		msg = http.StatusText(code)
	}
	typ, _, _ := strings.Cut(resp.Header.Get("X-Amzn-Errortype"), ":")
	if typ = strings.TrimSpace(typ); typ != "" && !strings.HasPrefix(msg, typ) {
		msg = typ + ": " + msg
	}
	return &provider.Error{
		StatusCode: code,
		Retryable:  code == http.StatusTooManyRequests || code == http.StatusRequestTimeout || code == http.StatusConflict || code >= 500,
		RetryAfter: httpc.RetryAfter(resp.Header, time.Now()),
		Message:    c.http.Message(msg),
	}
}

// hinted adds to a Bedrock error the fix its message points at.
func hinted(err error) error {
	pe, ok := errors.AsType[*provider.Error](err)
	if !ok {
		return err
	}
	msg := pe.Message
	switch {
	case pe.StatusCode == http.StatusForbidden && strings.Contains(msg, "access to the model"):
		msg += " (request access to the model in the Bedrock console's Model access page, and allow bedrock:InvokeModel on it to the credentials' IAM identity)"
	case pe.StatusCode == http.StatusForbidden && strings.Contains(msg, "scoped to a valid region"):
		// The endpoint serves another region than the one requests are signed for.
		msg += " (the request was signed for another region than the endpoint's: set the region: setting or AWS_REGION to the endpoint's region, or drop base_url / AWS_ENDPOINT_URL_BEDROCK_RUNTIME to use the region's own endpoint)"
	case pe.StatusCode == http.StatusForbidden:
		msg += " (check the AWS credentials: AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN, or the profile; an expired session needs new credentials, and the clock must be right)"
	case strings.Contains(msg, "on-demand throughput"):
		msg += " (use an inference profile id, for example bedrock/us.MODEL_ID, or its ARN)"
	case strings.Contains(msg, "identifier is invalid") || pe.StatusCode == http.StatusNotFound:
		msg += " (check the model id and the region: see 'aws bedrock list-foundation-models' and 'list-inference-profiles')"
	default:
		return err
	}
	out := *pe
	out.Message = msg
	return &out
}

// String names the client in messages.
func (c *Client) String() string { return fmt.Sprintf("bedrock/%s (%s)", c.model, c.region) }
