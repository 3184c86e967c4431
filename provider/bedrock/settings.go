package bedrock

import (
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"

	"github.com/promptcanary/promptcanary/internal/httpc"
	"github.com/promptcanary/promptcanary/provider/internal/setting"
)

// The settings of a bedrock provider entry in canary.yaml.
const (
	settingBaseURL    = "base_url"
	settingRegion     = "region"
	settingProfile    = "profile"
	settingHeaders    = "headers"
	settingStructured = "structured_output"
)

// The ways a prompt's response_format reaches a model (the
// structured_output setting).
const (
	// StructuredNative sends Converse's outputConfig.textFormat.
	StructuredNative = "native"
	// StructuredTool offers the schema as the only tool and forces it.
	StructuredTool = "tool"
	// StructuredPrompt asks for the JSON in the system prompt.
	StructuredPrompt = "prompt"
)

// settings are a bedrock entry's settings, read by readSettings.
type settings struct {
	baseURL, region, profile, structured string
	header                               http.Header
}

// root is how base_url (and AWS_ENDPOINT_URL_BEDROCK_RUNTIME) is read. The
// default depends on the region, so it has none here.
var root = setting.Root{
	Source: "setting base_url",
	Want:   "an http or https URL such as https://bedrock-runtime.us-east-1.amazonaws.com",
}

// regionPattern is the shape of an AWS region name (us-east-1,
// eu-central-2, us-gov-west-1, ap-southeast-4); it becomes part of a
// host name and of the signature's scope.
var regionPattern = regexp.MustCompile(`^[a-z]{2}(-[a-z]+)+-[0-9]{1,2}$`)

// profilePattern is what a profile name may hold: the names of the shared
// config file's [profile NAME] sections.
var profilePattern = regexp.MustCompile(`^[A-Za-z0-9_.@+=,/-]{1,128}$`)

// readSettings validates m and reports every problem at once.
func readSettings(m map[string]any) (settings, error) {
	var s settings
	known := []string{settingBaseURL, settingHeaders, settingProfile, settingRegion, settingStructured}
	err := setting.Read(m, known, func(k string, v any) error {
		var err error
		switch k {
		case settingBaseURL:
			s.baseURL, err = setting.String(k, v)
			if err == nil {
				_, err = root.Parse(s.baseURL)
			}
		case settingRegion:
			s.region, err = setting.String(k, v)
			if err == nil && !regionPattern.MatchString(s.region) {
				err = fmt.Errorf("setting region: want an AWS region such as us-east-1, got %q", httpc.Redact(s.region))
			}
		case settingProfile:
			s.profile, err = setting.String(k, v)
			if err == nil && !profilePattern.MatchString(s.profile) {
				err = errors.New("setting profile: want the name of a profile of the shared AWS config file, such as default")
			}
		case settingHeaders:
			s.header, err = setting.Header(k, v)
		case settingStructured:
			s.structured, err = setting.String(k, v)
			if err == nil {
				err = checkStructured(s.structured)
			}
		}
		return err
	})
	return s, err
}

// checkStructured checks a structured_output value.
func checkStructured(v string) error {
	switch v {
	case "", StructuredNative, StructuredTool, StructuredPrompt:
		return nil
	}
	return fmt.Errorf("setting structured_output: want native, tool or prompt, got %q", httpc.Redact(v))
}

// modelPattern is a model id, an inference profile id or an ARN: letters,
// digits and . _ : / - only. The id is path-escaped into the URL, so
// nothing else could reach the path, but anything else is a mistake.
var modelPattern = regexp.MustCompile(`^[A-Za-z0-9._:/-]+$`)

// checkModel rejects an empty model id or one that cannot be a Bedrock
// model id, inference profile or ARN.
func checkModel(model string) error {
	if model == "" {
		return errors.New("missing model id: want bedrock/MODEL_ID, for example bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0")
	}
	if len(model) > 2048 || !modelPattern.MatchString(model) {
		return fmt.Errorf("invalid model id %q: want a Bedrock model id, inference profile id or ARN such as us.anthropic.claude-sonnet-4-5-20250929-v1:0", httpc.Redact(model))
	}
	return nil
}

// escapePath escapes s as one path segment the way the AWS SDKs do: every
// byte but the unreserved ones (RFC 3986) is percent-encoded, so the
// colon of "…-v1:0" is sent as %3A. The signature is computed over this
// path.
func escapePath(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.' || c == '~' {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}
