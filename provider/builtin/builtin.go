// Package builtin registers every built-in provider. Import it for its
// side effect:
//
//	import _ "github.com/promptcanary/promptcanary/provider/builtin"
package builtin

import (
	// Each provider registers itself in init.
	_ "github.com/promptcanary/promptcanary/provider/anthropic"
	_ "github.com/promptcanary/promptcanary/provider/execcmd"
	_ "github.com/promptcanary/promptcanary/provider/gemini"
	_ "github.com/promptcanary/promptcanary/provider/httpapi"
	_ "github.com/promptcanary/promptcanary/provider/ollama"
	_ "github.com/promptcanary/promptcanary/provider/openai"
	_ "github.com/promptcanary/promptcanary/provider/replay"
	_ "github.com/promptcanary/promptcanary/provider/sim"
	_ "github.com/promptcanary/promptcanary/provider/vertex"
)
