package sim

import (
	"math"
	"regexp"
	"strconv"
	"strings"
)

// fact is one entry of the sim's small general-knowledge table: it matches
// when the lower-cased prompt contains every string of all.
type fact struct {
	all    []string
	answer string
	// more is a sentence that elaborates on the answer.
	more string
}

var facts = []fact{
	{[]string{"capital of france"}, "Paris", "Paris is also the largest city in France."},
	{[]string{"capital of germany"}, "Berlin", "Berlin has been the capital since reunification in 1990."},
	{[]string{"capital of japan"}, "Tokyo", "Tokyo is also the most populous metropolitan area in the world."},
	{[]string{"capital of italy"}, "Rome", "Rome is also home to Vatican City."},
	{[]string{"capital of spain"}, "Madrid", "Madrid sits near the geographic centre of the country."},
	{[]string{"capital of the united kingdom"}, "London", "London stands on the River Thames."},
	{[]string{"capital of the uk"}, "London", "London stands on the River Thames."},
	{[]string{"capital of england"}, "London", "London stands on the River Thames."},
	{[]string{"capital of canada"}, "Ottawa", "Ottawa lies in the province of Ontario."},
	{[]string{"capital of australia"}, "Canberra", "Canberra was purpose-built as the capital."},
	{[]string{"capital of the united states"}, "Washington, D.C.", "It sits on the Potomac River."},
	{[]string{"capital of the usa"}, "Washington, D.C.", "It sits on the Potomac River."},
	{[]string{"capital of china"}, "Beijing", "Beijing has been the capital for most of the last eight centuries."},
	{[]string{"capital of india"}, "New Delhi", "New Delhi is part of the National Capital Territory of Delhi."},
	{[]string{"capital of brazil"}, "Brasília", "Brasília was inaugurated as the capital in 1960."},
	{[]string{"capital of egypt"}, "Cairo", "Cairo lies on the banks of the Nile."},
	{[]string{"capital of russia"}, "Moscow", "Moscow is the largest city in Russia."},
	{[]string{"capital of mexico"}, "Mexico City", "Mexico City is built on the site of Tenochtitlan."},
	{[]string{"capital of peru"}, "Lima", "Lima lies on the Pacific coast."},
	{[]string{"capital of kenya"}, "Nairobi", "Nairobi is the largest city in Kenya."},
	{[]string{"symbol for gold"}, "Au", "It comes from the Latin word aurum."},
	{[]string{"symbol for silver"}, "Ag", "It comes from the Latin word argentum."},
	{[]string{"symbol for iron"}, "Fe", "It comes from the Latin word ferrum."},
	{[]string{"symbol for sodium"}, "Na", "It comes from the Latin word natrium."},
	{[]string{"formula for water"}, "H2O", "Each molecule has two hydrogen atoms and one oxygen atom."},
	{[]string{"formula of water"}, "H2O", "Each molecule has two hydrogen atoms and one oxygen atom."},
	{[]string{"largest planet"}, "Jupiter", "Jupiter is more than twice as massive as all the other planets combined."},
	{[]string{"smallest planet"}, "Mercury", "Mercury is also the planet closest to the Sun."},
	{[]string{"closest to the sun"}, "Mercury", "Mercury orbits the Sun every 88 days."},
	{[]string{"red planet"}, "Mars", "Its colour comes from iron oxide on its surface."},
	{[]string{"boiling point of water"}, "100 °C", "That is 212 °F at sea-level pressure."},
	{[]string{"freezing point of water"}, "0 °C", "That is 32 °F at sea-level pressure."},
	{[]string{"wrote hamlet"}, "William Shakespeare", "He wrote it around 1600."},
	{[]string{"author of hamlet"}, "William Shakespeare", "He wrote it around 1600."},
	{[]string{"wrote romeo and juliet"}, "William Shakespeare", "It was first published in 1597."},
	{[]string{"wrote pride and prejudice"}, "Jane Austen", "It was published in 1813."},
	{[]string{"author of pride and prejudice"}, "Jane Austen", "It was published in 1813."},
	{[]string{"wrote 1984"}, "George Orwell", "It was published in 1949."},
	{[]string{"painted the mona lisa"}, "Leonardo da Vinci", "It hangs in the Louvre in Paris."},
	{[]string{"speed of light"}, "299,792,458 metres per second", "That is the exact value in a vacuum."},
	{[]string{"tallest mountain"}, "Mount Everest", "Its summit is 8,849 metres above sea level."},
	{[]string{"highest mountain"}, "Mount Everest", "Its summit is 8,849 metres above sea level."},
	{[]string{"largest ocean"}, "The Pacific Ocean", "It covers about a third of the Earth's surface."},
	{[]string{"longest river"}, "The Nile", "It flows north through eleven countries to the Mediterranean."},
	{[]string{"how many continents"}, "7", "They are Africa, Antarctica, Asia, Australia, Europe, North America and South America."},
	{[]string{"days in a leap year"}, "366", "The extra day is 29 February."},
	{[]string{"days are in a leap year"}, "366", "The extra day is 29 February."},
	{[]string{"first president of the united states"}, "George Washington", "He served from 1789 to 1797."},
	{[]string{"walk on the moon"}, "Neil Armstrong", "He stepped onto the Moon on 20 July 1969."},
	{[]string{"world war ii end"}, "1945", "It ended with Japan's surrender in September 1945."},
	{[]string{"world war 2 end"}, "1945", "It ended with Japan's surrender in September 1945."},
	{[]string{"smallest prime"}, "2", "It is also the only even prime."},
	{[]string{"legs does a spider"}, "8", "All spiders have eight legs."},
	{[]string{"hardest natural"}, "Diamond", "It scores 10 on the Mohs scale."},
	{[]string{"powerhouse of the cell"}, "The mitochondria", "They produce most of the cell's ATP."},
	{[]string{"largest mammal"}, "The blue whale", "It can reach 30 metres in length."},
	{[]string{"chemical symbol", "oxygen"}, "O", "Oxygen has atomic number 8."},
}

var (
	reArith = regexp.MustCompile(`(?i)(-?\d+(?:\.\d+)?)\s*(\+|-|\*|×|x|/|÷|plus|minus|times|multiplied by|divided by)\s*(-?\d+(?:\.\d+)?)`)
	reSqrt  = regexp.MustCompile(`(?i)square root of (\d+(?:\.\d+)?)`)
	reCalc  = regexp.MustCompile(`(?i)\b(?:what(?:'s| is)|calculate|compute|evaluate|solve|how much is)\b`)
)

// arithmetic is a simple computation found in the prompt.
type arithmetic struct {
	a, b   string
	op     string
	result string
}

// arith finds "A op B" or "square root of N" in the prompt and computes it.
func (q *query) arith() (arithmetic, bool) { return q.arithFound.get(q.findArith) }

func (q *query) findArith() (arithmetic, bool) {
	if m := reSqrt.FindStringSubmatch(q.text); m != nil {
		x, err := strconv.ParseFloat(m[1], 64)
		if err == nil {
			return arithmetic{a: m[1], op: "√", result: formatNumber(math.Sqrt(x))}, true
		}
	}
	m := reArith.FindStringSubmatch(q.text)
	if m == nil {
		return arithmetic{}, false
	}
	a, errA := strconv.ParseFloat(m[1], 64)
	b, errB := strconv.ParseFloat(m[3], 64)
	if errA != nil || errB != nil {
		return arithmetic{}, false
	}
	op := strings.ToLower(m[2])
	var r float64
	switch op {
	case "+", "plus":
		op, r = "+", a+b
	case "-", "minus":
		op, r = "-", a-b
	case "*", "×", "x", "times", "multiplied by":
		op, r = "×", a*b
	default:
		op = "÷"
		if b == 0 {
			return arithmetic{a: m[1], b: m[3], op: op, result: "undefined"}, true
		}
		r = a / b
	}
	return arithmetic{a: m[1], b: m[3], op: op, result: formatNumber(r)}, true
}

func (a arithmetic) expr() string {
	if a.op == "√" {
		return "√" + a.a
	}
	return a.a + " " + a.op + " " + a.b
}

func formatNumber(x float64) string {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return "undefined"
	}
	if x == math.Trunc(x) && math.Abs(x) < 1e15 {
		return strconv.FormatInt(int64(x), 10)
	}
	return strconv.FormatFloat(math.Round(x*1e6)/1e6, 'f', -1, 64)
}

// fact returns the short answer to a factual question the sim knows.
func (q *query) fact() (fact, bool) { return q.factFound.get(q.findFact) }

func (q *query) findFact() (fact, bool) {
	for i := range facts {
		ok := true
		for _, s := range facts[i].all {
			if !strings.Contains(q.lower, s) {
				ok = false
				break
			}
		}
		if ok {
			return facts[i], true
		}
	}
	if reCalc.MatchString(q.text) || strings.HasSuffix(q.text, "?") {
		if a, ok := q.arith(); ok {
			return fact{answer: a.result, more: "That is " + a.expr() + " = " + a.result + "."}, true
		}
	}
	return fact{}, false
}
