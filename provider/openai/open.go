package openai

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/promptcanary/promptcanary/provider"
	"github.com/promptcanary/promptcanary/provider/internal/hint"
	"github.com/promptcanary/promptcanary/provider/internal/setting"
)

func init() {
	for _, ep := range endpoints {
		provider.Register(ep.name, opener(ep))
		provider.RegisterChecker(ep.name, checker(ep))
		provider.Declare(ep.name, provider.Capabilities{VendorModels: true, BaseURL: true, Free: ep.free})
	}
}

// Names returns the provider names this package registers, in table order.
func Names() []string {
	out := make([]string, len(endpoints))
	for i, ep := range endpoints {
		out[i] = ep.name
	}
	return out
}

// The settings every name accepts; azure also accepts settingAPIVersion.
const (
	settingBaseURL        = "base_url"
	settingAPIKeyEnv      = "api_key_env"
	settingHeaders        = "headers"
	settingMaxTokensField = "max_tokens_field"
	settingAPIVersion     = "api_version"
	settingAPI            = "api"
)

// azureVersionEnv names the variable read for Azure's api-version.
const azureVersionEnv = "AZURE_OPENAI_API_VERSION"

// configError joins every configuration problem and their hints.
type configError struct{ errs []error }

func (e *configError) Error() string { return errors.Join(e.errs...).Error() }

func (e *configError) Unwrap() []error { return e.errs }

// Hints returns the hints of every problem, in order.
func (e *configError) Hints() []string {
	var out []string
	for _, err := range e.errs {
		var h *hint.Error
		if errors.As(err, &h) {
			out = append(out, h.Hints()...)
		}
	}
	return out
}

// opener returns the factory registered for ep.
func opener(ep endpoint) provider.Factory {
	return func(model string, opts provider.Options) (provider.Provider, error) {
		cfg, err := configure(ep, model, opts)
		if err != nil {
			return nil, err
		}
		return New(cfg)
	}
}

// checker returns the checker registered for ep: the settings, model and
// base URL are read as the factory reads them, with the same messages,
// but no key is needed and nothing is called.
func checker(ep endpoint) provider.Checker {
	return func(model string, opts provider.Options) error {
		opts.Secrets = nil
		cfg, err := configureFor(ep, model, opts, false)
		if err != nil {
			return err
		}
		_, err = New(cfg)
		return err
	}
}

// settings are the parsed provider settings.
type settings struct {
	baseURL, apiKeyEnv, maxTokensField, apiVersion, api string
	headers                                             http.Header
}

// configure builds the Config for ep from settings and the environment,
// reporting every problem at once.
func configure(ep endpoint, model string, opts provider.Options) (Config, error) {
	return configureFor(ep, model, opts, true)
}

// configureFor is configure; needKey requires the key (when ep does).
func configureFor(ep endpoint, model string, opts provider.Options, needKey bool) (Config, error) {
	s, errs := parseSettings(ep, opts.Settings)
	cfg := Config{
		Name:           ep.name,
		Model:          model,
		Header:         s.headers,
		HTTPClient:     opts.HTTPClient,
		Azure:          ep.azure,
		MaxTokensField: s.maxTokensField,
		API:            s.api,
		Secrets:        opts.Secrets,
	}
	if strings.TrimSpace(model) == "" {
		errs = append(errs, fmt.Errorf("%s: missing model: want %s/MODEL", ep.name, ep.name))
	}

	// The base URL: setting, then environment, then the table.
	cfg.BaseURL = s.baseURL
	custom := cfg.BaseURL != ""
	if cfg.BaseURL == "" && ep.baseEnv != "" {
		cfg.BaseURL = strings.TrimSpace(opts.Env(ep.baseEnv))
		custom = cfg.BaseURL != ""
	}
	if cfg.BaseURL == "" && ep.baseURL == "" {
		what := "the server's base URL"
		if ep.azure {
			what = "the resource endpoint"
		}
		errs = append(errs, hint.New(fmt.Errorf("%s needs %s: neither base_url nor %s is set", ep.name, what, ep.baseEnv),
			fmt.Sprintf("set base_url in the provider's settings in canary.yaml (for example %s) or export %s", ep.example, ep.baseEnv)))
	} else if cfg.BaseURL != "" {
		if _, err := parseBase(cfg.BaseURL); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", ep.name, err))
		}
	}

	// The key: the named variable, required unless the name allows none.
	keyEnv := ep.keyEnv
	if s.apiKeyEnv != "" {
		keyEnv = s.apiKeyEnv
	}
	cfg.APIKey = strings.TrimSpace(opts.Env(keyEnv))
	opts.Secrets.Add(cfg.APIKey)
	opts.Secrets.Add(secretHeaderValues(s.headers)...)
	if !needKey {
		cfg.APIKey = ""
	}
	if needKey && cfg.APIKey == "" && !ep.keyOptional && !(ep.keyOptionalCustom && custom) {
		hints := []string{fmt.Sprintf("export %s, or set api_key_env in the provider's settings to the variable that holds the key", keyEnv)}
		if ep.keyOptionalCustom {
			hints = append(hints, "a local OpenAI-compatible server needs no key: set base_url (for example "+ep.example+")")
		}
		errs = append(errs, hint.New(errors.New(keyEnv+" is not set"), hints...))
	}

	if ep.azure {
		cfg.APIVersion = s.apiVersion
		if cfg.APIVersion == "" {
			cfg.APIVersion = strings.TrimSpace(opts.Env(azureVersionEnv))
		}
	}
	if len(errs) > 0 {
		return cfg, &configError{errs: errs}
	}
	return cfg, nil
}

// parseSettings reads the settings map, rejecting unknown keys and values
// of the wrong type.
func parseSettings(ep endpoint, m map[string]any) (settings, []error) {
	var s settings
	var errs []error
	known := []string{settingBaseURL, settingAPIKeyEnv, settingHeaders, settingMaxTokensField, settingAPI}
	if ep.azure {
		known = append(known, settingAPIVersion)
	}
	str := func(k string, v any, dst *string) {
		if v == nil {
			return
		}
		sv, ok := v.(string)
		if !ok {
			errs = append(errs, fmt.Errorf("%s: setting %s: want a string, got %T", ep.name, k, v))
			return
		}
		*dst = strings.TrimSpace(sv)
	}
	for _, k := range setting.Keys(m) {
		v := m[k]
		switch {
		case k == settingBaseURL:
			str(k, v, &s.baseURL)
		case k == settingAPIKeyEnv:
			str(k, v, &s.apiKeyEnv)
		case k == settingMaxTokensField:
			str(k, v, &s.maxTokensField)
			if s.maxTokensField != "" && s.maxTokensField != MaxTokens && s.maxTokensField != MaxCompletionTokens {
				errs = append(errs, fmt.Errorf("%s: setting %s: got %q, want %s or %s", ep.name, k, s.maxTokensField, MaxTokens, MaxCompletionTokens))
			}
		case k == settingAPI:
			str(k, v, &s.api)
			if e := checkAPI(ep, s.api); e != nil {
				errs = append(errs, e)
			}
		case k == settingAPIVersion && ep.azure:
			str(k, v, &s.apiVersion)
		case k == settingHeaders:
			h, err := headers(v)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: setting %s: %w", ep.name, k, err))
			}
			s.headers = h
		case k == settingAPIVersion:
			errs = append(errs, fmt.Errorf("%s: setting %s is only for azure", ep.name, k))
		default:
			errs = append(errs, fmt.Errorf("%s: %w", ep.name, setting.Unknown(k, known)))
		}
	}
	return s, errs
}

// checkAPI checks the api setting: chat, or responses except on azure.
func checkAPI(ep endpoint, api string) error {
	switch {
	case api == "" || api == APIChat:
		return nil
	case api == APIResponses && ep.azure:
		return hint.New(fmt.Errorf("%s: setting %s: %q is not supported for azure", ep.name, settingAPI, api),
			"remove the api setting: azure deployments are called through chat completions")
	case api == APIResponses:
		return nil
	}
	return fmt.Errorf("%s: setting %s: got %q, want %s or %s", ep.name, settingAPI, api, APIChat, APIResponses)
}

// headers reads the headers setting: a map of header names to strings.
func headers(v any) (http.Header, error) {
	h := http.Header{}
	switch m := v.(type) {
	case nil:
		return h, nil
	case map[string]string:
		for k, s := range m {
			h.Set(k, s)
		}
	case map[string]any:
		for k, x := range m {
			s, ok := x.(string)
			if !ok {
				return nil, fmt.Errorf("header %s: want a string, got %T", k, x)
			}
			h.Set(k, s)
		}
	default:
		return nil, fmt.Errorf("want a map of header names to values, got %T", v)
	}
	for k := range h {
		if strings.TrimSpace(k) == "" || strings.ContainsAny(k, " \t\r\n:") {
			return nil, fmt.Errorf("invalid header name %q", k)
		}
		for _, s := range h[k] {
			if strings.ContainsAny(s, "\r\n") {
				return nil, fmt.Errorf("header %s: value contains a line break", k)
			}
		}
	}
	return h, nil
}
