package hs

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/qrc-lang/qrc/internal/longtest"
)

// TimeLimit is the suite's time limit per solve: none. A problem's
// outcome must not depend on the machine's speed (the slowest takes 22 s on
// an idle 2-core machine, docs/testsuite.md; with a limit of 30 s a busy
// machine ended it time_limit); every problem ends on its own (converged,
// stalled), and go test's -timeout stops one that would not.
const TimeLimit time.Duration = 0

// TestHockSchittkowski solves every writable problem with qrc's default
// settings and scores it by the success rule; those with equality
// constraints are skipped while the checker refuses ==. It fails when a problem the manifest marks solved is not solved (a
// regression) and logs the problems newly solved, so that the manifest can
// be updated; it logs the count. Problems run two at a time.
func TestHockSchittkowski(t *testing.T) {
	if testing.Short() {
		t.Skip("the Hock-Schittkowski suite takes minutes")
	}
	longtest.Require(t, "the Hock-Schittkowski suite: 109 solves, minutes on 2 cores")
	if raceEnabled {
		t.Skip("the Hock-Schittkowski suite is too slow under the race detector")
	}
	var (
		mu     sync.Mutex
		solved []string
		newly  []string
		total  int
	)
	t.Run("problems", func(t *testing.T) {
		for _, p := range readManifest(t) {
			if !p.Writable() {
				continue
			}
			t.Run(p.Name, func(t *testing.T) {
				t.Parallel()
				o, err := Solve(context.Background(), p.Model("."), p.FStar, TimeLimit)
				if err != nil && p.Expect == Fails {
					t.Logf("%s is marked fails in problems.tsv (%s): %v", p.Name, p.Note, err)
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("%s: %s, f = %.10g (f* = %.10g), infeasibility %.2g, %d outer steps, %.2fs",
					p.Name, o.Status, o.Objective, p.FStar, o.Infeasibility, o.Outer, o.Seconds)
				mu.Lock()
				defer mu.Unlock()
				total++
				switch {
				case o.Success:
					solved = append(solved, p.Name)
					if p.Expect != Solved {
						newly = append(newly, p.Name)
					}
				case p.Expect == Solved:
					t.Errorf("%s is marked solved in problems.tsv but ends %s at f = %.10g (f* = %.10g) with infeasibility %.3g",
						p.Name, o.Status, o.Objective, p.FStar, o.Infeasibility)
				}
			})
		}
	})
	sort.Strings(solved)
	sort.Strings(newly)
	if len(newly) > 0 {
		t.Logf("newly solved (mark them solved in hs/problems.tsv): %s", strings.Join(newly, ", "))
	}
	t.Logf("qrc solves %d of the %d Hock-Schittkowski problems it ran", len(solved), total)
}

// TestManifestCoversModels: every model file has a manifest row, and every
// writable row a model file.
func TestManifestCoversModels(t *testing.T) {
	rows := map[string]Problem{}
	for _, p := range readManifest(t) {
		if _, dup := rows[p.Name]; dup {
			t.Errorf("%s is listed twice in problems.tsv", p.Name)
		}
		rows[p.Name] = p
		if _, err := os.Stat(p.Model(".")); p.Writable() && err != nil {
			t.Errorf("%s: %v", p.Name, err)
		}
	}
	files, err := filepath.Glob(filepath.Join("models", "*.qrc"))
	if err != nil {
		t.Fatal(err)
	}
	eq, err := filepath.Glob(filepath.Join("models", "eq", "*.qrc"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range append(files, eq...) {
		name := strings.TrimSuffix(filepath.Base(f), ".qrc")
		if p, ok := rows[name]; !ok || p.Model(".") != f {
			t.Errorf("%s has no row in problems.tsv", f)
		}
	}
	if len(files) == 0 {
		t.Error("no models in models/")
	}
}
