package layers

import (
	"bufio"
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const module = "github.com/ratesim/ratesim/"

// layer gives each package of the module its layer: a package may import
// only packages of lower layers.
var layer = map[string]int{
	"engine":                   0,
	"exact":                    0,
	"internal/atomicfile":      0,
	"internal/oracle":          0,
	"internal/version":         0,
	"internal/layers":          0,
	"internal/heap":            0,
	"internal/crash":           0,
	"internal/samepoint":       0, // the points a sweep lists twice (issue 29)
	"internal/specfile":        0, // what every study's spec file shares (YAML)
	"internal/budget":          0,
	"internal/param":           1, // one declaration per parameter (imports engine, exact)
	"internal/bareloop":        0, // a command: the reference of the speed figures, importing nothing of ours
	"internal/tailsketch":      0, // exact-then-sketched delays (drl)
	"internal/memprobe":        3, // live-heap checkpoints for the memory benchmarks (imports arrivals)
	"buckets":                  1,
	"systems":                  2,
	"arrivals":                 2,
	"plots":                    2,
	"profiles":                 2,
	"clients":                  2,
	"netcalc":                  1,
	"experiments":              3,
	"experiments/verify":       4,
	"experiments/splitstudy":   4, // the split study: run, sweep, results, figures
	"experiments/limiterstudy": 4, // a limiter from its name and parameters, for every study and drl
	"experiments/clientstudy":  5, // imports limiterstudy
	"drl":                      5, // imports limiterstudy (the store's limiters)
	"experiments/drlstudy":     6, // the drl study: imports drl and clientstudy (the designs for clients)
	"report":                   7,
	"cmd/ratesim":              8,
}

// statSources stats every .go file of the module, so that go test's cache
// (which records the files a test opens or stats, not those of the go list
// it runs) reruns this test whenever an import may have changed.
func statSources(t *testing.T) {
	t.Helper()
	err := filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != "../.." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") {
			_, err = os.Stat(path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestImportArrows lists the imports of every package of the module (not
// of their tests) with go list and checks them against the layers.
func TestImportArrows(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command:", err)
	}
	statSources(t)
	cmd := exec.Command(gobin, "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, module+"...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	n := 0
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		pkg := strings.TrimPrefix(fields[0], module)
		from, ok := layer[pkg]
		if !ok {
			t.Errorf("package %s has no layer: add it to the table of layers_test.go (and the picture in doc.go)", pkg)
			continue
		}
		n++
		for _, imp := range fields[1:] {
			dep, ours := strings.CutPrefix(imp, module)
			if !ours {
				continue
			}
			to, ok := layer[dep]
			switch {
			case !ok:
				// Reported as a package of its own.
			case pkg == "engine":
				t.Errorf("engine imports %s: it imports nothing of ours", dep)
			case to >= from:
				t.Errorf("%s (layer %d) imports %s (layer %d): arrows run downward only", pkg, from, dep, to)
			}
		}
	}
	if n < 10 {
		t.Errorf("checked %d packages, want the whole module:\n%s", n, out)
	}
}
