package nonsmooth

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/qrc-lang/qrc/solve"
)

// TimeLimit bounds each solve of the table, as the measurement
// did (defaults and --time-limit 30s).
const TimeLimit = 30 * time.Second

// Backstop is the regression test's wall-clock guard, far above any solved
// problem's time: it does not decide an outcome unless a solve hangs.
const Backstop = 10 * time.Minute

// quick are the problems the plain `go test ./nonsmooth` solves (each well
// under a second): one of each kind of kink, enough to show that the runner
// and the rule work end to end. QRC_NONSMOOTH=all solves every problem the
// manifest marks solved.
var quick = map[string]bool{"cb2": true, "rosen_suzuki": true, "crescent": true, "dem": true, "lq": true, "mifflin1": true}

// TestSolvedStaySolved solves the problems the manifest marks solved with
// qrc's default settings and the manifest's budget of outer iterations,
// scores each by the success
// rule and fails when one is not solved (a regression). With
// QRC_NONSMOOTH=all it runs every problem with a model, logs the ones newly
// solved (mark them solved in problems.tsv) and the count; otherwise only
// the quick ones. Problems run two at a time.
func TestSolvedStaySolved(t *testing.T) {
	all := os.Getenv("QRC_NONSMOOTH") == "all"
	if raceEnabled && all {
		t.Skip("the nonsmooth suite is too slow under the race detector")
	}
	var (
		mu     sync.Mutex
		solved []string
		total  int
	)
	t.Run("problems", func(t *testing.T) {
		for _, p := range readManifest(t) {
			if p.Expect != Solved {
				if quick[p.ID()] {
					t.Errorf("%s is in the quick set but not marked solved", p.ID())
				}
				continue
			}
			if !all && !quick[p.ID()] {
				continue
			}
			t.Run(p.ID(), func(t *testing.T) {
				t.Parallel()
				o, err := Solve(context.Background(), p, ".", solve.Settings{Outer: p.Outer, TimeLimit: Backstop})
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("%s: %s, f = %.10g (f* = %.10g), %d outer steps, %.2fs", p.ID(), o.Status, o.Objective, p.FStar, o.Outer, o.Seconds)
				mu.Lock()
				defer mu.Unlock()
				total++
				if o.Success {
					solved = append(solved, p.ID())
				} else {
					t.Errorf("%s is marked solved in problems.tsv but ends %s at f = %.10g (f* = %.10g, tolerance %.2g)",
						p.ID(), o.Status, o.Objective, p.FStar, Tolerance(p.FStar))
				}
			})
		}
	})
	sort.Strings(solved)
	t.Logf("qrc solves %d of the %d problems marked solved that it ran: %s", len(solved), total, strings.Join(solved, ", "))
}

// TestManifestCoversModels: every model file has a manifest row, every
// writable row a model file, and no row is listed twice.
func TestManifestCoversModels(t *testing.T) {
	rows := map[string]bool{}
	models := map[string]bool{}
	for _, p := range readManifest(t) {
		if rows[p.ID()] {
			t.Errorf("%s is listed twice in problems.tsv", p.ID())
		}
		rows[p.ID()] = true
		if !p.Writable() {
			continue
		}
		models[p.Model(".")] = true
		if _, err := os.Stat(p.Model(".")); err != nil {
			t.Errorf("%s: %v", p.ID(), err)
		}
	}
	files, err := filepath.Glob(filepath.Join("models", "*", "*.qrc"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no models")
	}
	for _, f := range files {
		if !models[f] {
			t.Errorf("%s has no row in problems.tsv", f)
		}
	}
}

// TestSuccessRule: the rule of issue 40, |f - f*| <= max(1e-6, 1e-4 |f*|),
// at its edges.
func TestSuccessRule(t *testing.T) {
	cases := []struct {
		f, inf, fstar float64
		want          bool
	}{
		{0.9e-6, 0, 0, true},
		{1.1e-6, 0, 0, false},
		{-1.1e-6, 0, 0, false}, // below f* = 0: the model or f* is wrong
		{-44 + 0.0043, 0, -44, true},
		{-44 + 0.0045, 0, -44, false},
		{-44 - 0.0045, 0, -44, false},
		{0, 2e-6, 0, false},
	}
	for _, c := range cases {
		if got := Success(c.f, c.inf, c.fstar); got != c.want {
			t.Errorf("Success(%v, %v, %v) = %v, want %v", c.f, c.inf, c.fstar, got, c.want)
		}
	}
}
