package similarity

import (
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/cputime"
	"github.com/promptcanary/promptcanary/probe/internal/probetest"
)

// benchText returns about 1 KB of prose, varied by seed the way samples of
// one answer vary: the same sentences, some reworded, in another order.
func benchText(seed int) string {
	sentences := []string{
		"The capital of France is Paris, which sits on the Seine in the north of the country.",
		"Paris has been the seat of French government for most of the last thousand years.",
		"It is known for the Eiffel Tower, the Louvre museum and its cafés and boulevards.",
		"The city proper has about two million inhabitants, and the metropolitan area over twelve.",
		"Its economy rests on finance, tourism, fashion, luxury goods and public administration.",
		"The Paris Métro, opened in 1900, carries several million passengers every day.",
		"Lyon and Marseille are the next largest cities, but neither rivals Paris in size.",
		"In short, the answer is Paris, as it has been since the Capetian kings chose it.",
		"Many visitors come each year to see its monuments, parks and world-famous museums.",
		"The river divides the city into the Left Bank and the Right Bank, each with its character.",
		"Some sources also mention Versailles, where the court lived before the Revolution.",
		"Today Paris hosts UNESCO, the OECD and many other international organisations.",
	}
	var b strings.Builder
	for i := 0; b.Len() < 1024; i++ {
		s := sentences[(i*(seed+1)+seed+i/len(sentences))%len(sentences)]
		if (i+seed)%4 == 0 {
			s = strings.Replace(s, "the", "a", 1)
		}
		b.WriteString(s)
		b.WriteByte(' ')
	}
	return strings.ToValidUTF8(b.String()[:1024], "")
}

// BenchmarkEvaluate scores a 1 KB answer against five 1 KB references
// with each metric, as a compare does for every current sample.
func BenchmarkEvaluate(b *testing.B) {
	refs := make([]promptcanary.Response, 5)
	for i := range refs {
		refs[i] = promptcanary.Response{PromptID: "p1", Sample: i, Content: benchText(i + 1)}
	}
	resp := &promptcanary.Response{PromptID: "p1", Content: benchText(0)}
	for _, m := range metrics {
		b.Run(m, func(b *testing.B) {
			p := &Similarity{Metric: Metric(m), Min: 0.5}
			b.SetBytes(int64(len(resp.Content)))
			b.ReportAllocs()
			cpu := cputime.Process()
			for b.Loop() {
				if res := probetest.Eval(p, nil, resp, refs...); res.Details == "" {
					b.Fatal("no details")
				}
			}
			if c := cputime.Process() - cpu; cpu > 0 && c > 0 {
				b.ReportMetric(float64(c.Nanoseconds())/float64(b.N), "cpu-ns/op")
			}
		})
	}
}
