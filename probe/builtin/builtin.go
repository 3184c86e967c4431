// Package builtin registers every built-in probe type. Import it for its
// side effect:
//
//	import _ "github.com/promptcanary/promptcanary/probe/builtin"
package builtin

import (
	// Each family registers its probe types in init.
	_ "github.com/promptcanary/promptcanary/probe/custom"
	_ "github.com/promptcanary/promptcanary/probe/factual"
	_ "github.com/promptcanary/promptcanary/probe/format"
	_ "github.com/promptcanary/promptcanary/probe/judge"
	_ "github.com/promptcanary/promptcanary/probe/match"
	_ "github.com/promptcanary/promptcanary/probe/meta"
	_ "github.com/promptcanary/promptcanary/probe/reasoning"
	_ "github.com/promptcanary/promptcanary/probe/safety"
	_ "github.com/promptcanary/promptcanary/probe/schema"
	_ "github.com/promptcanary/promptcanary/probe/similarity"
	_ "github.com/promptcanary/promptcanary/probe/tooluse"
)
