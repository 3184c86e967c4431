package geminitest

import "testing"

// FuzzCheck feeds arbitrary bodies to the stand-in: Check must never
// panic, and a body it accepts must get an answer.
func FuzzCheck(f *testing.F) {
	f.Add([]byte(`{"contents":[{"role":"user","parts":[{"text":"hi"}]}],"generationConfig":{"maxOutputTokens":10}}`), "gemini-2.5-pro", false)
	f.Add([]byte(`{"contents":[{"role":"user","parts":[{"text":"a"}]},{"role":"model","parts":[{"functionCall":{"name":"f","args":{}}}]},{"role":"user","parts":[{"functionResponse":{"name":"f","response":{"output":1}}}]}],"tools":[{"functionDeclarations":[{"name":"f","parameters":{"type":"object","properties":{"a":{"type":"array","items":{"anyOf":[{"type":"string"}]}}}}}]}],"toolConfig":{"functionCallingConfig":{"mode":"ANY","allowedFunctionNames":["f"]}},"generationConfig":{"responseMimeType":"application/json","responseJsonSchema":{"required":["x"]},"thinkingConfig":{"thinkingBudget":-1,"includeThoughts":true}}}`), "gemini-2.5-flash", true)
	f.Add([]byte(`{"contents":[]}`), "gemini-2.0-flash", false)
	f.Fuzz(func(t *testing.T, body []byte, model string, vertex bool) {
		r, err := Check(body, model, vertex)
		if err == nil && len(Reply(r)) == 0 {
			t.Fatal("accepted request got no answer")
		}
	})
}
