// Package tooluse holds the built-in TOOL_USE probes: tool_call_presence,
// tool_call_name, tool_call_args and tool_call_schema. Importing it
// registers them with package probe.
//
// Every probe reads the structured tool calls the provider returned
// (promptcanary.Response.ToolCalls) when there are any. Otherwise it reads
// the response content as the original PromptCanary did: the trimmed content
// parsed as JSON (OpenAI {"tool_calls":[{"function":{"name":…,"arguments":"…"}}]},
// simple {"function":"name","args":{…}}, Anthropic-style {"name":…,"input":{…}}
// and lists of these), then text patterns as a fallback. Each result records
// where the calls were read from in metadata "source": "structured", "json",
// "text" or "none".
//
// JSON numbers are typed by value: 3, 3.0 and 1e2 are integers, 3.5 is a
// number but not an integer, and booleans are never numbers.
package tooluse
