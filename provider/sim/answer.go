package sim

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/promptcanary/promptcanary"
)

// draft is an answer before the model's behaviours are applied.
type draft struct {
	kind      kind
	text      string // the body of a text answer
	multiline bool
	obj       jval   // the object of a JSON answer
	tool      string // the tool a tool call names
	args      jval   // its arguments
	more      []string
	moreAt    int
}

const (
	refusalText         = "I'm sorry, but I can't help with that."
	harmlessRefusalText = "I'm sorry, but I can't help with that request."
	hedgeText           = "I think this is right, but I'm not entirely sure and it might vary."
	refusalHedgeText    = "I think it's probably best that I don't."
)

// elaborations extend an answer without hedging, disclaimers or a tone.
var elaborations = []string{
	"The same idea applies across the common cases.",
	"In practice, this is the version most references use.",
	"It is a standard result that is easy to verify.",
	"Each part builds directly on the previous one.",
	"The key point is to keep the core idea in view.",
	"A worked example makes the pattern clear.",
	"Most textbooks present it in exactly this way.",
	"This covers the essentials without extra detail.",
}

var refusalMore = []string{
	"If you are researching safety, official public resources cover the topic responsibly.",
	"I can help with a related, harmless question instead.",
	"Questions about history, prevention or staying safe are ones I can answer.",
}

var preambles = []string{"Sure! ", "Certainly! ", "Of course! ", "Great question! ", "Absolutely! "}

var disclaimers = []string{
	"Disclaimer: this answer is for informational purposes only.",
	"Please consult a professional before acting on this information.",
}

// knowledge holds short plain answers on a few common topics.
var knowledge = []struct {
	all  []string
	text string
}{
	{[]string{"photosynthesis"}, "Photosynthesis is the process plants, algae and some bacteria use to turn light into chemical energy. Chlorophyll absorbs sunlight, which drives the conversion of carbon dioxide and water into glucose and releases oxygen."},
	{[]string{"recursion"}, "Recursion is when a function solves a task by calling itself on a smaller version of the same task. Every recursive function needs a base case that stops the calls and a step that moves toward it."},
	{[]string{"gravity"}, "Gravity is the force by which masses attract one another. On Earth it gives objects weight and accelerates falling bodies at 9.8 m/s²."},
	{[]string{"dns"}, "DNS translates domain names into the IP addresses computers use to reach each other. A resolver queries a chain of name servers, from the root to the domain's authoritative server, and caches the answer."},
	{[]string{"tcp", "udp"}, "TCP provides reliable, ordered delivery with connection setup and retransmission, while UDP sends independent datagrams with no delivery guarantee. TCP suits web pages and file transfers; UDP suits real-time audio, video and games."},
	{[]string{"inflation"}, "Inflation is the rate at which the general level of prices rises, reducing what a unit of money can buy. Central banks manage it mainly by adjusting interest rates."},
	{[]string{"machine learning"}, "Machine learning is a field of computer science in which systems learn patterns from data instead of following hand-written rules. A model is trained on examples, then used to make predictions on new inputs."},
	{[]string{"rainbow"}, "A rainbow forms when sunlight enters raindrops, bends, reflects off the back of each drop and bends again on the way out. Each colour bends by a different amount, so the light spreads into a spectrum."},
	{[]string{"sky", "blue"}, "The sky is blue because air molecules scatter short blue wavelengths of sunlight much more than longer red ones. This effect is called Rayleigh scattering."},
}

var plainTemplates = []string{
	"%s comes down to a few core ideas. Knowing what it is for and how its parts fit together covers the essentials.",
	"In short, %s is best understood through its purpose and its main parts. Once those are clear, the details follow naturally.",
	"%s has a clear core: what it does, how it works and where it is used. Those three points cover what most people need.",
}

var shortTemplates = []string{
	"%s has a settled answer that standard references agree on.",
	"Standard references give one settled answer on %s.",
}

var stepPool = []string{
	"Start by clarifying the goal: %s.",
	"Break the task into its main stages and put them in order.",
	"Work through the first stage carefully and confirm its result.",
	"Move on to the next stage, building on what you just completed.",
	"Check the outcome of each stage before continuing.",
	"Finish by reviewing the result against what you set out to do.",
}

var reHowTo = regexp.MustCompile(`(?i)\bhow (?:to|do i|can i|should i|would i|do you|can you)\b`)

var sectionTemplates = []string{
	"This section introduces %s and why it matters.",
	"Here are the main points to know about %s.",
	"These details show %s in practice.",
	"In summary, %s rests on a few clear ideas.",
}

// draft builds the answer the prompt asks for.
func (q *query) draft(r *prng) *draft {
	d := &draft{kind: q.classify(), more: elaborations, moreAt: r.intn(len(elaborations))}
	vc := &valueContext{q: q, r: r}
	switch d.kind {
	case kindRefusal:
		d.text, d.more, d.moreAt = refusalText, refusalMore, 0
	case kindTool:
		t := q.toolChoice()
		d.tool = t.Name
		vc.tool = true
		d.args = vc.fromSchema("", t.Parameters, 0)
		if d.args.kind != jObject {
			d.args = jval{kind: jObject}
		}
	case kindJSON:
		if f := q.p.ResponseFormat; f != nil && f.Type == promptcanary.FormatJSONSchema && len(f.Schema) > 0 {
			d.obj = vc.fromSchema("", f.Schema, 0)
			break
		}
		d.obj = q.jsonObject(vc)
	case kindMarkdown:
		d.text, d.multiline = q.markdown(), true
	case kindSteps:
		d.text, d.multiline = q.steps(), true
	case kindFact:
		f, _ := q.fact()
		d.text = f.answer
		if f.more != "" {
			d.more = append([]string{f.more}, elaborations...)
			d.moreAt = 0
		}
	case kindShort:
		if k := q.knowledge(); k != "" {
			d.text, _, _ = strings.Cut(k, ". ")
			d.text += "."
			break
		}
		t := q.topic()
		if t == "" {
			t = "this question"
		}
		d.text = upperFirst(fmt.Sprintf(shortTemplates[r.intn(len(shortTemplates))], t))
	default:
		if k := q.knowledge(); k != "" {
			d.text = k
			break
		}
		t := q.topic()
		if t == "" {
			t = "this topic"
		}
		d.text = upperFirst(fmt.Sprintf(plainTemplates[r.intn(len(plainTemplates))], t))
	}
	return d
}

func (q *query) knowledge() string {
	for _, k := range knowledge {
		ok := true
		for _, w := range k.all {
			if !strings.Contains(q.lower, w) {
				ok = false
				break
			}
		}
		if ok {
			return k.text
		}
	}
	return ""
}

// defaultKeys are used for a JSON answer when the prompt names no keys.
var defaultKeys = []struct {
	words []string
	keys  []string
}{
	{[]string{"weather", "forecast"}, []string{"city", "temperature", "conditions"}},
	{[]string{"book", "novel"}, []string{"title", "author", "year"}},
	{[]string{"movie", "film"}, []string{"title", "director", "year"}},
	{[]string{"recipe"}, []string{"title", "ingredients", "servings"}},
	{[]string{"product", "item"}, []string{"product", "price", "in_stock"}},
	{[]string{"event", "meeting"}, []string{"title", "date", "location"}},
	{[]string{"sentiment"}, []string{"sentiment", "confidence"}},
	{[]string{"country", "countries"}, []string{"country", "capital", "population"}},
	{[]string{"person", "user", "customer", "employee", "character", "student", "profile", "people"}, []string{"name", "age", "city"}},
}

// jsonObject builds the object a JSON prompt asks for.
func (q *query) jsonObject(vc *valueContext) jval {
	keys, ex := q.jsonKeys()
	if ex != nil {
		return vc.fromExample("", ex, 0)
	}
	obj := jval{kind: jObject}
	if len(keys) == 0 {
		if f, ok := q.fact(); ok {
			obj.fields = append(obj.fields, jfield{"answer", str(f.answer)}, jfield{"confidence", vc.plausible("confidence", jAny)})
			return obj
		}
		names := []string{"answer", "confidence"}
		for _, dk := range defaultKeys {
			if has(q.lower, dk.words...) {
				names = dk.keys
				break
			}
		}
		for _, k := range names {
			keys = append(keys, item{name: k})
		}
	}
	obj.fields = make([]jfield, 0, len(keys))
	for _, k := range keys {
		obj.fields = append(obj.fields, jfield{key: k.name, val: vc.plausible(k.name, typeKind(k.typ))})
	}
	return obj
}

func (q *query) steps() string {
	var lines []string
	if a, ok := q.arith(); ok {
		lines = []string{
			"Identify the numbers and the operation: " + a.expr() + ".",
			"Compute " + a.expr() + " = " + a.result + ".",
			"Check the result with a quick estimate or the inverse operation.",
			"The answer is " + a.result + ".",
		}
	} else {
		t := q.topic()
		if t == "" {
			t = "the task"
		}
		n := 3 + pick(q.hash, saltSteps, 3)
		first := "Start with the basics of %s."
		if reHowTo.MatchString(q.text) {
			first = stepPool[0]
		}
		lines = append(lines, fmt.Sprintf(first, t))
		lines = append(lines, stepPool[1:n-1]...)
		lines = append(lines, stepPool[len(stepPool)-1])
	}
	var b strings.Builder
	for i, l := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(strconv.Itoa(i + 1))
		b.WriteString(". ")
		b.WriteString(l)
	}
	return b.String()
}

func (q *query) markdown() string {
	t := q.topic()
	title := upperFirst(t)
	if t == "" {
		t, title = "the subject", "Overview"
	}
	heads := q.headers()
	if len(heads) == 0 {
		heads = []item{{name: "Overview"}, {name: "Key Points"}, {name: "Summary"}}
	}
	var b strings.Builder
	b.WriteString("# ")
	b.WriteString(title)
	for i, h := range heads {
		b.WriteString("\n\n## ")
		b.WriteString(h.name)
		b.WriteString("\n\n")
		fmt.Fprintf(&b, sectionTemplates[i%len(sectionTemplates)], t)
	}
	return b.String()
}

// Behaviours a model can show on one answer.
type flag uint16

const (
	fPreamble      flag = 1 << iota
	fHedge              // hedging words
	fExtraSentence      // one more sentence (temperature variation)
	fLonger             // about 1.6 times longer (noise)
	fMuchLonger         // two to three times longer (drift)
	fDisclaimer
	fRefuse     // a refusal of a harmless prompt
	fKeySwap    // two adjacent JSON keys swapped (temperature variation)
	fKeyReverse // JSON keys in reverse order (noise)
	fDropKey    // the last JSON key missing (drift)
	fWrapJSON   // JSON in a fence wrapped in prose (drift)
	fRenameTool
	fDropArg
)

// noiseOptions are the behaviours that fail now and then on a noisy prompt.
func noiseOptions(k kind) []flag {
	switch k {
	case kindJSON:
		return []flag{fPreamble, fKeyReverse}
	case kindTool:
		return []flag{fPreamble}
	case kindRefusal:
		return []flag{fHedge, fLonger}
	}
	return []flag{fPreamble, fHedge, fLonger}
}

// driftOptions are the behaviours sim/drifted may show on a prompt, besides
// refusing a harmless one.
func driftOptions(k kind) []flag {
	switch k {
	case kindJSON:
		return []flag{fWrapJSON, fDropKey}
	case kindTool:
		return []flag{fRenameTool, fDropArg}
	case kindRefusal:
		return []flag{fMuchLonger}
	}
	return []flag{fPreamble, fDisclaimer, fMuchLonger}
}

// Drift and noise rates.
const (
	noiseShare     = 0.25 // share of prompts a noisy model touches
	noiseRate      = 0.10 // failure rate per sample on those prompts
	subtleShare    = 0.25 // share of prompts where sim/subtle drops
	subtleRateMin  = 0.40 // failure rate there, from subtleRateMin …
	subtleRateSpan = 0.10 // … to subtleRateMin+subtleRateSpan
	driftShare     = 0.65 // share of prompts sim/drifted drifts on
	driftEach      = 0.60 // chance of each drift behaviour on such a prompt
	driftRefusal   = 0.20 // chance such a prompt is refused outright
)

// noiseProfile returns the behaviour that fails on the prompt and how often,
// or 0, 0 when the prompt is unaffected.
func noiseProfile(ph uint64, k kind, subtle bool) (flag, float64) {
	opts := noiseOptions(k)
	b := opts[pick(ph, saltNoiseKind, len(opts))]
	p := 0.0
	if unit(ph, saltNoise) < noiseShare {
		p = noiseRate
	}
	if subtle && unit(ph, saltSubtle) < subtleShare {
		p = subtleRateMin + subtleRateSpan*unit(ph, saltSubtleP)
	}
	if p == 0 {
		return 0, 0
	}
	return b, p
}

// driftProfile returns the drift behaviours sim/drifted shows on a prompt.
func driftProfile(ph uint64, k kind) flag {
	if unit(ph, saltDrift) >= driftShare {
		return 0
	}
	if k != kindTool && k != kindRefusal && unit(ph, saltDriftRefuse) < driftRefusal {
		return fRefuse
	}
	opts := driftOptions(k)
	var f flag
	for i, b := range opts {
		if unit(ph, saltDriftEach+uint64(i+1)*1000) < driftEach {
			f |= b
		}
	}
	if f == 0 {
		f = opts[pick(ph, saltDriftPick, len(opts))]
	}
	return f
}

// behaviours decides which behaviours this call shows.
func (s *Sim) behaviours(r *prng, ph uint64, k kind, temp float64) flag {
	var f flag
	// Draw every variate on every call so the stream does not depend on the
	// outcome of earlier draws.
	uPre, uExtra, uSwap, uNoise := r.float(), r.float(), r.float(), r.float()
	if uPre < 0.02*temp {
		f |= fPreamble
	}
	if uExtra < 0.3*temp {
		f |= fExtraSentence
	}
	if uSwap < 0.1*temp {
		f |= fKeySwap
	}
	if s.m.noise {
		if b, p := noiseProfile(ph, k, s.m.subtle); uNoise < p {
			f |= b
		}
	}
	if s.m.drift {
		f |= driftProfile(ph, k)
	}
	return f
}

// render applies the behaviours in f and writes the answer into resp.
func (d *draft) render(resp *promptcanary.Response, f flag, r *prng, ph uint64) {
	switch {
	case d.kind == kindTool:
		d.renderTool(resp, f, r)
		return
	case f&fRefuse != 0:
		resp.Content = harmlessRefusalText
		return
	case d.kind == kindJSON:
		d.renderJSON(resp, f, r)
		return
	}
	body := d.text
	if f&fExtraSentence != 0 {
		body = d.addSentence(body, d.next())
	}
	if f&fLonger != 0 {
		body = d.grow(body, 1.6)
	}
	if f&fMuchLonger != 0 {
		body = d.grow(body, 2+unit(ph, saltDriftFactor))
	}
	if f&fDisclaimer != 0 {
		body = d.addSentence(body, disclaimers[pick(ph, saltDisclaimer, len(disclaimers))])
	}
	if f&fHedge != 0 {
		if d.kind == kindRefusal {
			body = d.addSentence(body, refusalHedgeText)
		} else {
			body = d.addSentence(body, hedgeText)
		}
	}
	if f&fPreamble != 0 && d.kind != kindRefusal {
		pre := preambles[r.intn(len(preambles))]
		switch d.kind {
		case kindSteps:
			body = pre + "Here are the steps:\n\n" + body
		case kindMarkdown:
			body = pre + "Here is the document you asked for.\n\n" + body
		case kindFact:
			body = pre + "The answer is " + body
			if !endsSentence(body) {
				body += "."
			}
		default:
			body = pre + body
		}
	}
	resp.Content = body
}

func (d *draft) renderJSON(resp *promptcanary.Response, f flag, r *prng) {
	fields := d.obj.fields
	switch {
	case f&fKeyReverse != 0:
		for i, j := 0, len(fields)-1; i < j; i, j = i+1, j-1 {
			fields[i], fields[j] = fields[j], fields[i]
		}
	case f&fKeySwap != 0 && len(fields) >= 2:
		i := r.intn(len(fields) - 1)
		fields[i], fields[i+1] = fields[i+1], fields[i]
	}
	if f&fDropKey != 0 && len(fields) >= 2 {
		d.obj.fields = fields[:len(fields)-1]
	}
	buf := make([]byte, 0, 256)
	switch {
	case f&fWrapJSON != 0:
		buf = append(buf, "Sure! Here is the JSON you asked for:\n```json\n"...)
		buf = appendJSON(buf, &d.obj, 0)
		buf = append(buf, "\n```\nLet me know if you need anything else."...)
	case f&fPreamble != 0:
		buf = append(buf, preambles[r.intn(len(preambles))]...)
		buf = append(buf, "Here is the JSON:\n"...)
		buf = appendJSON(buf, &d.obj, 0)
	default:
		buf = appendJSON(buf, &d.obj, 0)
	}
	resp.Content = string(buf)
}

func (d *draft) renderTool(resp *promptcanary.Response, f flag, r *prng) {
	name := d.tool
	if f&fRenameTool != 0 {
		name = renameTool(name)
	}
	if f&fDropArg != 0 && len(d.args.fields) >= 2 {
		d.args.fields = d.args.fields[:len(d.args.fields)-1]
	}
	id := make([]byte, 0, 21)
	id = append(id, "call_"...)
	id = strconv.AppendUint(id, r.src.Uint64()>>16, 16)
	resp.ToolCalls = []promptcanary.ToolCall{{
		ID:        string(id),
		Name:      name,
		Arguments: json.RawMessage(appendJSON(make([]byte, 0, 128), &d.args, -1)),
	}}
	resp.FinishReason = "tool_calls"
	if f&fPreamble != 0 {
		resp.Content = "Sure, let me check that for you."
	}
}

// renameTool is how sim/drifted renames a tool: get_weather → fetch_weather,
// getWeather → fetchWeather, look_up → lookUp, search → search_v2.
func renameTool(name string) string {
	switch {
	case strings.HasPrefix(name, "get_"):
		return "fetch_" + name[4:]
	case strings.HasPrefix(name, "get") && len(name) > 3 && name[3] >= 'A' && name[3] <= 'Z':
		return "fetch" + name[3:]
	case strings.Contains(name, "_"):
		parts := strings.Split(name, "_")
		for i := 1; i < len(parts); i++ {
			parts[i] = upperFirst(parts[i])
		}
		if camel := strings.Join(parts, ""); camel != name && camel != "" {
			return camel
		}
	}
	return name + "_v2"
}

func (d *draft) next() string {
	s := d.more[d.moreAt%len(d.more)]
	d.moreAt++
	return s
}

// grow appends sentences until body is factor times its length.
func (d *draft) grow(body string, factor float64) string {
	target := int(float64(len(body)) * factor)
	for i := 0; len(body) < target && i < 24; i++ {
		body = d.addSentence(body, d.next())
	}
	return body
}

func (d *draft) addSentence(body, s string) string {
	switch {
	case d.multiline:
		return body + "\n\n" + s
	case endsSentence(body):
		return body + " " + s
	}
	return body + ". " + s
}

func endsSentence(s string) bool {
	if s == "" {
		return true
	}
	switch s[len(s)-1] {
	case '.', '!', '?':
		return true
	}
	return false
}
