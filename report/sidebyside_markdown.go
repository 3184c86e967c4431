package report

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// renderSideMarkdown writes the side-by-side report m as Markdown.
func renderSideMarkdown(b *bytes.Buffer, m *sideModel) {
	w := newMD(b)
	names := w.sideSummary(m)
	w.sideGroups(names, m)
	w.sideCategories(names, m)
	w.sideErrors(m)
	w.sideAnswers(names, m)
	ids := make([]string, len(m.RunIDs))
	for i, id := range m.RunIDs {
		ids[i] = mdText(id, 200)
	}
	w.footer(m.Tool, "runs "+strings.Join(ids, ", "), "")
	w.finish()
}

// sideSummary writes the heading, the counts, the notes and the summary
// table, and returns the provider names of the columns.
func (w *md) sideSummary(m *sideModel) []string {
	icon := "✅"
	switch {
	case len(m.Disagree) > 0:
		icon = "⚖️"
	case !m.AllPass:
		icon = "❌"
	}
	w.line("## ", icon, " PromptCanary side-by-side report: ", mdText(m.Suite, 200))
	w.line()
	line := fmt.Sprintf("**%s** · samples %s · started %s · %s: **%s**, %s",
		plural(m.Providers, "provider", "providers"), m.Samples, m.Started, plural(m.Pairs, "pair", "pairs"),
		plural(len(m.Disagree), "disagreement", "disagreements"), plural(len(m.Differ), "difference", "differences"))
	if len(m.FailAll) > 0 {
		line += fmt.Sprintf(", %d failing everywhere", len(m.FailAll))
	}
	line += fmt.Sprintf(", %d identical", len(m.Identical))
	if m.ErrorCount > 0 {
		line += " · " + plural(m.ErrorCount, "call error", "call errors")
	}
	w.line(line)
	if len(m.Notes) > 0 {
		w.line()
		for _, n := range m.Notes {
			w.line("- ⚠️ ", mdText(n, 1000))
		}
	}
	w.line()
	names := make([]string, len(m.Columns))
	for i, c := range m.Columns {
		names[i] = mdText(c.Name, 100)
	}
	rows := make([][]string, len(m.Summary))
	for i, s := range m.Summary {
		rows[i] = append([]string{s.Label}, mdCells(s.Cells, false)...)
	}
	w.table(append([]string{"Provider"}, names...), "l"+strings.Repeat("r", len(names)), rows)
	return names
}

// sideGroups writes the pairs on which providers disagree, differ, all
// fail, and (folded) pass identically.
func (w *md) sideGroups(names []string, m *sideModel) {
	if len(m.Disagree) > 0 {
		w.heading(fmt.Sprintf("### ⚠️ Disagreements (%d)", len(m.Disagree)))
		w.line("Some providers pass these pairs and others fail them; failing verdicts are in bold.")
		w.line()
		w.sideMatrix(names, m.Disagree, true, true)
	} else if len(m.Columns) > 1 {
		w.line()
		w.line("✅ No disagreements: the providers give the same verdict on every pair.")
	}
	if len(m.Differ) > 0 {
		w.heading(fmt.Sprintf("### 🔎 Differences (%d)", len(m.Differ)))
		w.line("Same verdict from every provider that answered, with different scores or pass counts, or a provider without a result.")
		w.line()
		w.sideMatrix(names, m.Differ, false, true)
	}
	if len(m.FailAll) > 0 {
		w.heading(fmt.Sprintf("### ❌ Failing everywhere (%d)", len(m.FailAll)))
		w.line(m.FailAllExplain)
		w.line()
		w.sideMatrix(names, m.FailAll, false, true)
	}
	if n := len(m.Identical); n > 0 {
		w.details(fmt.Sprintf("✅ Passing identically everywhere (%d)", n))
		w.sideMatrix(names, m.Identical, false, false)
		w.endDetails()
	}
}

// sideCategories writes the table by category.
func (w *md) sideCategories(names []string, m *sideModel) {
	if len(m.Categories) > 0 {
		w.heading("### By category")
		rows := make([][]string, len(m.Categories))
		for i, c := range m.Categories {
			rows[i] = append([]string{mdText(c.Category, 100)}, mdCells(c.Cells, false)...)
		}
		w.table(append([]string{"Category"}, names...), "l"+strings.Repeat("r", len(names)), rows)
	}
}

// sideErrors writes the calls that failed for good, by provider.
func (w *md) sideErrors(m *sideModel) {
	if len(m.Errors) > 0 {
		w.heading(fmt.Sprintf("### ⚠️ Errors (%d)", m.ErrorCount))
		w.line("Calls that failed for good: their prompts were not measured for those samples. These are not probe failures.")
		for _, e := range m.Errors {
			w.line()
			w.line("**", mdText(e.Provider, 200), fmt.Sprintf("** (%d)", len(e.Rows)))
			w.line()
			rows := make([][]string, len(e.Rows))
			for i, r := range e.Rows {
				rows[i] = []string{mdText(r.PromptID, 200), strconv.Itoa(r.Sample), mdText(orDash(r.Provider), 200), r.Attempts, mdText(r.Message, mdDetailRunes)}
			}
			w.table([]string{"Prompt", "Sample", "Provider", "Attempts", "Message"}, "lrlr", rows)
		}
	}
}

// sideAnswers writes the first sample's answer of each provider, by
// prompt, folded.
func (w *md) sideAnswers(names []string, m *sideModel) {
	if len(m.Answers) > 0 {
		w.details(fmt.Sprintf("💬 Answers by prompt (%d)", len(m.Answers)))
		w.line("The first sample's answer of each provider; prompts on which providers disagree come first.")
		for _, a := range m.Answers {
			w.line()
			mark := ""
			if a.Disagree {
				mark = " ⚖️ disagreement"
			}
			w.line("**", mdText(a.PromptID, 200), "**", mark)
			for i, t := range a.Texts {
				w.line()
				w.line(mdText(names[i], 100), ":")
				w.line()
				w.fenced(cut(t, sideAnswerMDRunes))
			}
			w.cut()
		}
		w.endDetails()
	}
}

// sideAnswerMDRunes bounds an answer in Markdown.
const sideAnswerMDRunes = 600

// sideMatrix writes matrix rows with one column per provider; bold marks
// failing cells, details adds the failing providers' details.
func (w *md) sideMatrix(names []string, rows []sideRow, bold, details bool) {
	head := append([]string{"Probe", "Category", "Prompt"}, names...)
	align := "lll" + strings.Repeat("r", len(names))
	if details {
		head = append(head, "Details")
	}
	out := make([][]string, len(rows))
	for i, r := range rows {
		out[i] = append([]string{mdText(r.Probe, 200), mdText(r.Category, 100), mdText(r.PromptID, 200)}, mdCells(r.Cells, bold)...)
		if !details {
			continue
		}
		parts := make([]string, len(r.Details))
		for j, d := range r.Details {
			parts[j] = "**" + mdText(d.Provider, 100) + ":** " + mdText(d.Text, mdDetailRunes)
		}
		out[i] = append(out[i], orDash(strings.Join(parts, "<br>")))
	}
	w.table(head, align, out)
}

// mdCells formats provider cells, escaping those with untrusted text; bold
// marks failing cells.
func mdCells(cells []sideCell, bold bool) []string {
	out := make([]string, len(cells))
	for i, c := range cells {
		out[i] = c.Text
		if c.untrusted {
			out[i] = mdText(c.Text, 200)
		}
		if bold && c.Class == "fail" {
			out[i] = "**" + out[i] + "**"
		}
	}
	return out
}
