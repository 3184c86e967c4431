// Package vertex is the provider client for Google Vertex AI, used by
// "vertex/MODEL": Gemini models (vertex/gemini-2.5-flash) through
// generateContent, and Anthropic's Claude models (vertex/claude-sonnet-4-5@20250929)
// through rawPredict.
//
// A Gemini model is called at
//
//	POST https://{location}-aiplatform.googleapis.com/v1/projects/{project}/locations/{location}/publishers/google/models/{model}:generateContent
//
// (https://aiplatform.googleapis.com/… for location "global") with the
// gemini client's request and answer (conversations, structured output,
// thinking, blocks; see package gemini).
// https://cloud.google.com/vertex-ai/generative-ai/docs/model-reference/inference
//
// A model whose name starts with "claude-" is called at
// …/publishers/anthropic/models/{model}:rawPredict with the anthropic
// client's Messages API body, less "model" (the URL names it) and with
// "anthropic_version": "vertex-2023-10-16" (see package anthropic).
// https://cloud.google.com/vertex-ai/generative-ai/docs/partner-models/claude
//
// Credentials are Application Default Credentials, found by Google's own
// library (cloud.google.com/go/auth): the service-account or user JSON
// file named by GOOGLE_APPLICATION_CREDENTIALS, gcloud's user credentials
// (gcloud auth application-default login), or the metadata server on
// Google Cloud. Each request carries an OAuth access token (scope
// cloud-platform) as a bearer token; the library caches and refreshes it.
// Every token is added to the run's secrets as it is minted, and so are
// the private key, client secret and refresh token of a credentials file.
//
// Settings (the provider's block in canary.yaml):
//
//	project   Google Cloud project ID; default GOOGLE_CLOUD_PROJECT, else
//	          the project of the credentials (a service account's project_id)
//	location  region such as us-east5, or global; default
//	          GOOGLE_CLOUD_LOCATION, else global
//	base_url  API root instead of https://{location}-aiplatform.googleapis.com
//	          (a proxy, a private endpoint, a test server)
//	headers   extra request headers
package vertex

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"github.com/promptcanary/promptcanary/internal/httpc"
	"github.com/promptcanary/promptcanary/internal/redact"
	"github.com/promptcanary/promptcanary/provider"
	"github.com/promptcanary/promptcanary/provider/anthropic"
	"github.com/promptcanary/promptcanary/provider/gemini"
	"github.com/promptcanary/promptcanary/provider/internal/hint"
	"github.com/promptcanary/promptcanary/provider/internal/setting"
)

// Defaults and names of the client.
const (
	// DefaultLocation is used when neither location: nor
	// GOOGLE_CLOUD_LOCATION names one; Gemini 2.5 and Claude 4.5 models
	// are served there.
	DefaultLocation = "global"
	// ProjectEnv and LocationEnv are read when the settings name none.
	ProjectEnv  = "GOOGLE_CLOUD_PROJECT"
	LocationEnv = "GOOGLE_CLOUD_LOCATION"
	// AnthropicVersion is the anthropic_version Vertex AI takes in the body.
	// https://cloud.google.com/vertex-ai/generative-ai/docs/partner-models/claude
	AnthropicVersion = "vertex-2023-10-16"
)

func init() {
	provider.Register("vertex", Open)
	provider.RegisterChecker("vertex", Check)
	provider.Declare("vertex", provider.Capabilities{VendorModels: true, BaseURL: true})
}

// settings are the provider's settings from canary.yaml.
type settings struct {
	setting.Common
	project, location string
}

var (
	locationRE = regexp.MustCompile(`^[a-z][a-z0-9-]{0,62}$`)
	// projectRE takes project IDs and domain-scoped ones ("example.com:my-project").
	projectRE = regexp.MustCompile(`^[a-z][a-z0-9.:-]{1,99}$`)
	modelRE   = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._@-]{0,199}$`)
)

// root reads base_url; the default depends on the location (see endpoint).
var root = setting.Root{
	Source: "setting base_url",
	// A placeholder: an empty base_url is never parsed with it.
	Default: "https://aiplatform.googleapis.com",
	Want:    "an http or https URL such as https://us-east5-aiplatform.googleapis.com",
	Suffix:  "/v1",
}

// readSettings validates m and reports every problem at once.
func readSettings(m map[string]any) (settings, error) {
	var s settings
	known := []string{"base_url", "headers", "location", "project"}
	err := setting.Read(m, known, func(k string, v any) error {
		var err error
		switch k {
		case "base_url":
			s.BaseURL, err = setting.String(k, v)
			if err == nil {
				_, err = root.Parse(s.BaseURL)
			}
		case "headers":
			s.Header, err = setting.Header(k, v)
		case "project":
			s.project, err = setting.String(k, v)
			if err == nil && !projectRE.MatchString(s.project) {
				err = errors.New("setting project: want a Google Cloud project ID such as my-project-123")
			}
		case "location":
			s.location, err = setting.String(k, v)
			if err == nil && !locationRE.MatchString(s.location) {
				err = errors.New("setting location: want a region such as us-east5, or global")
			}
		}
		return err
	})
	return s, err
}

// checkModel rejects a name that would change the URL path.
func checkModel(model string) error {
	if model == "" {
		return errors.New("missing model name: want vertex/MODEL, for example vertex/gemini-2.5-flash or vertex/claude-sonnet-4-5@20250929")
	}
	if !modelRE.MatchString(model) {
		return fmt.Errorf("invalid model name %q: want a name such as gemini-2.5-flash or claude-sonnet-4-5@20250929", httpc.Redact(model))
	}
	return nil
}

// Check checks the model and settings as Open does, but finds no
// credentials and makes no network call.
func Check(model string, opts provider.Options) error {
	s, err := readSettings(opts.Settings)
	if err := errors.Join(checkModel(model), err); err != nil {
		return err
	}
	_, err = s.where(opts, "check-project")
	return err
}

// where returns the location and the API root for the settings, with the
// project to use when credentials name none.
func (s settings) where(opts provider.Options, project string) (endpointParts, error) {
	loc := s.location
	if loc == "" {
		loc = strings.TrimSpace(opts.Env(LocationEnv))
		if loc != "" && !locationRE.MatchString(loc) {
			return endpointParts{}, fmt.Errorf("%s: want a region such as us-east5, or global", LocationEnv)
		}
	}
	if loc == "" {
		loc = DefaultLocation
	}
	host := "https://" + loc + "-aiplatform.googleapis.com"
	if loc == "global" {
		host = "https://aiplatform.googleapis.com"
	}
	if s.BaseURL != "" {
		u, err := root.Parse(s.BaseURL)
		if err != nil {
			return endpointParts{}, err
		}
		host = u.String()
	}
	return endpointParts{root: host, project: project, location: loc}, nil
}

// endpointParts build the URL of a model.
type endpointParts struct {
	root, project, location string
}

// url is the method URL of model, published by publisher.
func (e endpointParts) url(publisher, model, method string) string {
	return e.root + "/v1/projects/" + url.PathEscape(e.project) + "/locations/" + e.location +
		"/publishers/" + publisher + "/models/" + url.PathEscape(model) + ":" + method
}

// Open opens "vertex/MODEL": it finds the credentials (reading a
// credentials file; on Google Cloud, asking the metadata server whether it
// is there) and the project, but calls no API and mints no token yet.
func Open(model string, opts provider.Options) (provider.Provider, error) {
	s, err := readSettings(opts.Settings)
	if err := errors.Join(checkModel(model), err); err != nil {
		return nil, err
	}
	if opts.Secrets == nil {
		opts.Secrets = redact.New()
	}
	ctx := context.Background()
	auth, err := findCredentials(ctx, opts)
	if err != nil {
		return nil, err
	}
	project := s.project
	if project == "" {
		project = strings.TrimSpace(opts.Env(ProjectEnv))
	}
	if project == "" {
		project = auth.project(ctx)
	}
	if project == "" {
		return nil, hint.New(errors.New("no Google Cloud project: the credentials name none and no setting does"),
			"set project: in the provider's settings of canary.yaml, or "+ProjectEnv+", to the Google Cloud project ID")
	}
	if !projectRE.MatchString(project) {
		return nil, fmt.Errorf("invalid Google Cloud project %q: want a project ID such as my-project-123", httpc.Redact(project))
	}
	where, err := s.where(opts, project)
	if err != nil {
		return nil, err
	}
	if strings.HasPrefix(model, "claude-") {
		return anthropic.New(anthropic.Config{
			Model: model, Endpoint: where.url("anthropic", model, "rawPredict"), BodyVersion: AnthropicVersion,
			Authorize: auth.authorize, Header: s.Header, HTTPClient: opts.HTTPClient, Secrets: opts.Secrets,
		})
	}
	return gemini.New(gemini.Config{
		Model: model, Endpoint: where.url("google", model, "generateContent"),
		Authorize: auth.authorize, Header: s.Header, HTTPClient: opts.HTTPClient, Secrets: opts.Secrets,
	})
}
