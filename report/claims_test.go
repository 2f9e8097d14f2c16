package report

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The checks below read a regenerated report as a reader would: each
// sentence that states a comparison, an optimum, a direction or a count
// is recomputed here from the Markdown table it sits beside (parsed from
// the text, not taken from the code that wrote it), and must agree.

// mdTable is a Markdown table of the report under its caption.
type mdTable struct {
	caption string
	header  []string
	rows    [][]string
}

// parseTables returns the numbered tables of md by number.
func parseTables(md string) map[int]mdTable {
	out := map[int]mdTable{}
	re := regexp.MustCompile(`(?m)^\*\*Table (\d+)\.\*\* (.*)$`)
	for _, m := range re.FindAllStringSubmatchIndex(md, -1) {
		n, _ := strconv.Atoi(md[m[2]:m[3]])
		tb := mdTable{caption: md[m[4]:m[5]]}
		lines := strings.Split(md[m[1]:], "\n")
		i := 0
		for i < len(lines) && !strings.HasPrefix(lines[i], "|") {
			i++
		}
		cells := func(l string) []string {
			parts := strings.Split(strings.Trim(l, "|"), " | ")
			for j := range parts {
				parts[j] = strings.TrimSpace(parts[j])
			}
			return parts
		}
		if i < len(lines) {
			tb.header = cells(lines[i])
			for i += 2; i < len(lines) && strings.HasPrefix(lines[i], "|"); i++ {
				tb.rows = append(tb.rows, cells(lines[i]))
			}
		}
		out[n] = tb
	}
	return out
}

// figureText returns the caption of Figure n.
func figureText(md string, n int) string {
	re := regexp.MustCompile(fmt.Sprintf(`(?m)^\*\*Figure %d\*\* \(\[PNG\]\([^)]*\)\)\. (.*)$`, n))
	m := re.FindStringSubmatch(md)
	if m == nil {
		return ""
	}
	return m[1]
}

// tableWith returns the number and table whose caption starts with
// prefix, the first after table from.
func tableWith(t *testing.T, tabs map[int]mdTable, prefix string, from int) (int, mdTable) {
	t.Helper()
	for n := from + 1; n <= len(tabs); n++ {
		if strings.HasPrefix(tabs[n].caption, prefix) {
			return n, tabs[n]
		}
	}
	t.Fatalf("no table after %d whose caption starts %q", from, prefix)
	return 0, mdTable{}
}

// figureWith returns the number and caption of the first figure whose
// caption contains s.
func figureWith(t *testing.T, md, s string) (int, string) {
	t.Helper()
	for n := 1; ; n++ {
		c := figureText(md, n)
		if c == "" {
			t.Fatalf("no figure caption contains %q", s)
		}
		if strings.Contains(c, s) {
			return n, c
		}
	}
}

// lead parses the number a cell starts with ("1.17 [1.09, 1.26]" is
// 1.17); NaN for a cell that does not start with one ("—").
func lead(s string) float64 {
	f := strings.Fields(s)
	if len(f) == 0 {
		return math.NaN()
	}
	x, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return math.NaN()
	}
	return x
}

// direction is the test's own reading of a sequence: "rises" when every
// step goes up, "falls" when every step goes down, "not monotone"
// otherwise.
func direction(ys []float64) string {
	up, down := true, true
	for i := 1; i < len(ys); i++ {
		up = up && ys[i] > ys[i-1]
		down = down && ys[i] < ys[i-1]
	}
	switch {
	case len(ys) < 2:
		return "one point"
	case up:
		return "rises"
	case down:
		return "falls"
	}
	return "not monotone"
}

// directionWords are the words the report uses for each direction.
var directionWords = map[string]string{
	"rises":        "rises at every step",
	"falls":        "falls at every step",
	"not monotone": "is not monotone",
	"one point":    "is defined at one point only",
}

// checkClaims checks the report's computed sentences against their
// tables, and its comparison with the full version (in compare).
func checkClaims(t *testing.T, md, compare string) {
	tabs := parseTables(md)

	// Figure 5 (split-k): the direction of the ratio over k >= 2 and
	// whether the one-bucket mean is the same at every k, against the
	// table of every point.
	_, kc := figureWith(t, md, "number k of equal sub-buckets")
	if !strings.Contains(kc, "log k axis") || strings.Contains(kc, "M/D/1") || !strings.Contains(kc, "E_k/D/1") {
		t.Errorf("Figure 5 caption: want a log k axis and E_k/D/1, not M/D/1: %q", kc)
	}
	_, kt := tableWith(t, tabs, "Sweep split-k, every point", 0)
	var ys, ones []float64
	for _, r := range kt.rows {
		if k := lead(r[0]); k > 1 && !math.IsNaN(lead(r[3])) {
			ys = append(ys, lead(r[3]))
		}
		ones = append(ones, lead(r[1]))
	}
	if w := directionWords[direction(ys)]; !strings.Contains(kc, "the ratio "+w) {
		t.Errorf("Figure 5 says %q; its table's ratios %v: want %q", kc, ys, w)
	}
	sameOne := !slices.ContainsFunc(ones, func(x float64) bool { return x != ones[0] })
	if strings.Contains(kc, "at every point (the same arrivals for every k)") != sameOne {
		t.Errorf("Figure 5 on the one-bucket mean %q; the table's one-bucket means %v", kc, ones)
	}

	// Figures of the heat maps: the smallest stable cell, on or off the
	// diagonal, and the count of cells above 1, against the cells table
	// after each.
	n := 0
	for fig := 1; figureText(md, fig) != ""; fig++ {
		c := figureText(md, fig)
		if !strings.Contains(c, "over the traffic share p") {
			continue
		}
		n++
		if strings.Contains(c, "smallest near the diagonal") {
			t.Errorf("Figure %d keeps the fixed claim about the diagonal: %q", fig, c)
		}
		tn, cells := tableWith(t, tabs, "The cells of the heat map above", 0)
		for i := 1; i < n; i++ { // the n-th cells table
			tn, cells = tableWith(t, tabs, "The cells of the heat map above", tn)
		}
		best, bp, bq, stable, above := math.Inf(1), 0.0, 0.0, 0, 0
		for _, r := range cells.rows {
			q := lead(r[0])
			for j, cell := range r[1:] {
				v := lead(cell)
				if math.IsNaN(v) {
					continue
				}
				stable++
				if v > 1 {
					above++
				}
				if v < best {
					best, bp, bq = v, lead(cells.header[j+1]), q
				}
			}
		}
		m := regexp.MustCompile(`smallest at q = ([0-9.]+), p = ([0-9.]+) \(([0-9.e+]+) `).FindStringSubmatch(c)
		if m == nil {
			t.Errorf("Figure %d does not say where the ratio is smallest: %q", fig, c)
			continue
		}
		if lead(m[3]) != best {
			t.Errorf("Figure %d: smallest ratio %s at q = %s, p = %s; table %d's smallest is %v at q = %v, p = %v", fig, m[3], m[1], m[2], tn, best, bq, bp)
		}
		onDiag := lead(m[1]) == lead(m[2])
		if strings.Contains(c, "on the diagonal p = q") != onDiag || strings.Contains(c, "off the diagonal p = q") == onDiag {
			t.Errorf("Figure %d: on or off the diagonal wrong for q = %s, p = %s: %q", fig, m[1], m[2], c)
		}
		if want := fmt.Sprintf("above 1 at %d of the %d stable cells", above, stable); !strings.Contains(c, want) {
			t.Errorf("Figure %d: want %q (table %d): %q", fig, want, tn, c)
		}
	}
	if n == 0 {
		t.Error("no heat map figure")
	}

	// Load-burst: the direction over the load of each burst's curve.
	_, lc := figureWith(t, md, "against the load ρ")
	_, lt := tableWith(t, tabs, "Sweep load-burst, every point", 0)
	byBurst := map[string][]float64{}
	var bursts []string
	for _, r := range lt.rows {
		if !slices.Contains(bursts, r[0]) {
			bursts = append(bursts, r[0])
		}
		if v := lead(r[4]); !math.IsNaN(v) {
			byBurst[r[0]] = append(byBurst[r[0]], v)
		}
	}
	for _, b := range bursts {
		if w := fmt.Sprintf("for b = %s the ratio %s", b, directionWords[direction(byBurst[b])]); !strings.Contains(lc, w) {
			t.Errorf("load-burst figure: want %q (ratios %v): %q", w, byBurst[b], lc)
		}
	}
	// The least-bad captions: no interval wholly below 1, with every
	// interval of the two full tables above 1 at its upper end.
	for _, tb := range []mdTable{kt, lt} {
		for _, r := range tb.rows {
			m := regexp.MustCompile(`\[([0-9.e+-]+|NaN), ([0-9.e+-]+|NaN)\]`).FindStringSubmatch(r[len(r)-1])
			if m != nil && lead(m[2]) < 1 && strings.Contains(md, "no interval of the") {
				t.Errorf("an interval lies below 1 (%s) while a caption says none does", r[len(r)-1])
			}
		}
	}

	// Section 5: the order with the smallest and the largest maximum and
	// p99, against the order table.
	_, ot := tableWith(t, tabs, "One sample path under three service orders", 0)
	_, oc := figureWith(t, md, "under the three orders")
	argBy := func(col int, less bool) string {
		best := ot.rows[0]
		for _, r := range ot.rows {
			if (less && lead(r[col]) < lead(best[col])) || (!less && lead(r[col]) > lead(best[col])) {
				best = r
			}
		}
		return best[0]
	}
	for _, want := range []string{
		argBy(5, true) + " has the smallest maximum and " + argBy(5, false) + " the largest",
		"the p99 is smallest under " + argBy(4, true) + " and largest under " + argBy(4, false),
	} {
		if !strings.Contains(oc, want) {
			t.Errorf("order figure: want %q: %q", want, oc)
		}
	}

	// Section 6: the prose about max and topm follows the claims map.
	_, ct := tableWith(t, tabs, "The stronger-claims map", 0)
	fails := map[string]bool{}
	for _, r := range ct.rows {
		fails[strings.Trim(r[0], "`")+"/"+r[1]] = strings.Contains(r[4], "fails")
	}
	switch {
	case !fails["max/fcfs"] && !strings.Contains(md, "**The maximum delay under FCFS** held on every instance"):
		t.Error("the map says max holds under FCFS, the text does not")
	case fails["max/fcfs"] && !strings.Contains(md, "**The maximum delay under FCFS failed**"):
		t.Error("the map says max fails under FCFS, the text does not")
	}
	if !fails["max/fcfs"] {
		if got := strings.Contains(md, "the map above shows the claim failing"); got != fails["max/any"] {
			t.Errorf("the text says max fails under any order: %v; the map: %v", got, fails["max/any"])
		}
	}
	if got := strings.Contains(md, "held under FCFS on every instance tried"); got == fails["topm/fcfs"] {
		t.Errorf("the text says topm holds under FCFS: %v; the map says it fails: %v", got, fails["topm/fcfs"])
	}

	// Section 7: the DRL text against its table.
	if _, dt := tableWith(t, tabs, "Distributed designs on", 0); len(dt.rows) > 0 {
		var total = map[string]float64{}
		var admitted = map[string]string{}
		var syncOver []float64
		for _, r := range dt.rows {
			if r[0] == "sync" {
				syncOver = append(syncOver, lead(r[6]))
				continue
			}
			total[r[0]], admitted[r[0]] = lead(r[5]), r[2]
		}
		i := strings.Index(md, "What the table shows")
		text := md[i : i+strings.Index(md[i:], "\n")]
		if want := map[bool]string{true: "is at least the one bucket's", false: "is **below** the one bucket's"}[total["static"] >= total["one"]]; !strings.Contains(text, want) {
			t.Errorf("DRL text: want %q (static %v, one %v): %q", want, total["static"], total["one"], text)
		}
		if want := map[bool]string{true: "admits the same number of jobs as", false: "admits a different number of jobs from"}[admitted["store"] == admitted["one"]]; !strings.Contains(text, want) {
			t.Errorf("DRL text: want %q: %q", want, text)
		}
		over := 0
		for _, o := range syncOver {
			if o > 1 {
				over++
			}
		}
		if want := fmt.Sprintf("at %d of the %d periods T tried", over, len(syncOver)); !strings.Contains(text, want) {
			t.Errorf("DRL text: want %q (overshoots %v): %q", want, syncOver, text)
		}
		dir := "never falls as T grows"
		for j := 1; j < len(syncOver); j++ {
			if syncOver[j] < syncOver[j-1] {
				dir = "is not monotone in T"
			}
		}
		if !strings.Contains(text, dir) {
			t.Errorf("DRL text: want %q (overshoots %v): %q", dir, syncOver, text)
		}
	}

	// The quick version against the full one: the differences it lists
	// are those between its conclusions table and the full version's
	// conclusions.json, read here.
	_, conc := tableWith(t, tabs, "The qualitative conclusions of this report", 0)
	mine := map[string]string{}
	for _, r := range conc.rows {
		mine[strings.Trim(r[0], "`")] = r[1]
	}
	if !strings.Contains(md, "**This is the quick version**") {
		return // a full version compares with nothing
	}
	b, err := os.ReadFile(filepath.Join(compare, "conclusions.json"))
	if err != nil {
		if !strings.Contains(md, "Compared with the full version: not done") {
			t.Error("no full version to compare with, and the report does not say so")
		}
		return
	}
	var full struct {
		Mode        string
		Conclusions []struct{ ID, Value string }
	}
	if err := json.Unmarshal(b, &full); err != nil {
		t.Fatal(err)
	}
	if full.Mode != "full" {
		return
	}
	differ := 0
	for _, c := range full.Conclusions {
		v, ok := mine[c.ID]
		if ok && v != c.Value {
			differ++
			if want := fmt.Sprintf("`%s`: quick %q, full %q", c.ID, v, c.Value); !strings.Contains(md, want) {
				t.Errorf("the quick version does not list the difference %s", want)
			}
		}
	}
	if differ == 0 && !strings.Contains(md, "conclusions are the same") {
		t.Error("no conclusion differs from the full version's, and the report does not say so")
	}
	if differ > 0 && !strings.Contains(md, fmt.Sprintf("%d of %d differ", differ, len(conc.rows))) {
		t.Errorf("%d conclusions differ from the full version's; the report does not say so", differ)
	}
}

// TestTrend: the words and the conclusion for sequences read by hand.
func TestTrend(t *testing.T) {
	for _, c := range []struct {
		xs, ys     []float64
		text, want string
	}{
		{[]float64{2, 4, 8}, []float64{1.1, 1.5, 3}, "rises at every step, from 1.1 at k = 2 to 3 at k = 8", "rises"},
		{[]float64{2, 4, 8}, []float64{3, 1.5, 1.1}, "falls at every step, from 3 at k = 2 to 1.1 at k = 8", "falls"},
		// 1.5 -> 1.2 falls, 1.2 -> 2 rises: smallest 1.2 at 4, largest 2 at 8.
		{[]float64{2, 4, 8}, []float64{1.5, 1.2, 2}, "is not monotone in k: smallest at k = 4 (1.2), largest at k = 8 (2)", "not monotone"},
		{[]float64{2, 4}, []float64{1, 1}, "is not monotone in k", "not monotone"}, // flat is neither
		{[]float64{64}, []float64{333}, "is defined at one point only, k = 64 (333)", "one point"},
	} {
		text, v := trend("k", c.xs, c.ys, f4)
		if !strings.HasPrefix(text, c.text) || v != c.want {
			t.Errorf("trend(%v, %v) = %q, %q; want %q, %q", c.xs, c.ys, text, v, c.text, c.want)
		}
	}
}

// TestDifferences: conclusions compared by identifier.
func TestDifferences(t *testing.T) {
	quick := []conclusion{{"a", "rises"}, {"b", "0"}, {"q", "x"}}
	full := []conclusion{{"a", "falls"}, {"b", "0"}, {"f", "y"}}
	differ, onlyQuick, onlyFull := differences(quick, full)
	if len(differ) != 1 || differ[0] != "`a`: quick \"rises\", full \"falls\"" || !slices.Equal(onlyQuick, []string{"q"}) || !slices.Equal(onlyFull, []string{"f"}) {
		t.Errorf("differences: %q, %q, %q", differ, onlyQuick, onlyFull)
	}
}
