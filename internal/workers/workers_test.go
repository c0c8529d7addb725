package workers

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"weak"
)

// TestEveryItemOnce runs many jobs of various sizes on 1, 2 and 4 cores,
// with pauses longer and shorter than Spin between them, and checks that
// every item runs exactly once, on a worker numbered below GOMAXPROCS that
// runs nothing else at the same time.
func TestEveryItemOnce(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, procs := range []int{1, 2, 4} {
		runtime.GOMAXPROCS(procs)
		var counts []atomic.Int32
		busy := make([]atomic.Int32, procs)
		var bad atomic.Int32
		j := &Job{Fn: func(w, i int) {
			if w < 0 || w >= procs || busy[w].Add(1) != 1 {
				bad.Add(1)
			}
			counts[i].Add(1)
			for k := 0; k < 200; k++ { // some work, so that helpers join
				_ = k * i
			}
			busy[w].Add(-1)
		}}
		for r := range 300 {
			n := []int{0, 1, 2, 3, 17, 1000}[r%6]
			counts = make([]atomic.Int32, n)
			j.Run(n)
			for i := range counts {
				if c := counts[i].Load(); c != 1 {
					t.Fatalf("GOMAXPROCS %d, run %d: item %d of %d ran %d times", procs, r, i, n, c)
				}
			}
			if b := bad.Load(); b != 0 {
				t.Fatalf("GOMAXPROCS %d, run %d: %d items on a bad or busy worker", procs, r, b)
			}
			if r%50 == 0 {
				time.Sleep(2 * Spin) // let the helpers park
			}
		}
	}
}

// TestConcurrentJobs runs distinct jobs from several goroutines at once.
func TestConcurrentJobs(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			var sum atomic.Int64
			j := &Job{Fn: func(_, i int) { sum.Add(int64(i)) }}
			for r := range 500 {
				sum.Store(0)
				n := 1 + (r*7+g)%300
				j.Run(n)
				if got, want := sum.Load(), int64(n*(n-1)/2); got != want {
					t.Errorf("goroutine %d, run %d: the items add up to %d, want %d", g, r, got, want)
					return
				}
			}
		})
	}
	wg.Wait()
}

// TestPoolReleasesJob checks that the pool keeps no job alive after its
// run: a job's Fn may hold a compiled program of gigabytes.
func TestPoolReleasesJob(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	big := make([]float64, 1<<20)
	j := &Job{Fn: func(_, i int) { big[i]++ }}
	j.Run(len(big))
	wj, wb := weak.Make(j), weak.Make(&big[0])
	j, big = nil, nil
	for range 10 {
		runtime.GC()
		if wj.Value() == nil && wb.Value() == nil {
			return
		}
		time.Sleep(Spin)
	}
	t.Fatal("the job is still reachable after its run")
}

// TestRunPartsEveryItemOnce runs uneven parts, empty parts and more parts
// than workers, and checks that every item runs once.
func TestRunPartsEveryItemOnce(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	cases := [][]int{{0}, {5}, {0, 0, 7}, {3, 3, 10}, {1, 100}, {}}
	var many []int
	for k := range 100 {
		many = append(many, 3*k+1)
	}
	cases = append(cases, many)
	for _, procs := range []int{1, 2, 4} {
		runtime.GOMAXPROCS(procs)
		var counts []atomic.Int32
		j := &Job{Fn: func(w, i int) {
			if w >= procs {
				t.Errorf("worker %d with GOMAXPROCS %d", w, procs)
			}
			counts[i].Add(1)
		}}
		for r := range 50 {
			ends := cases[r%len(cases)]
			n := 0
			if len(ends) > 0 {
				n = ends[len(ends)-1]
			}
			counts = make([]atomic.Int32, n)
			j.RunParts(ends)
			for i := range counts {
				if c := counts[i].Load(); c != 1 {
					t.Fatalf("GOMAXPROCS %d, parts %v: item %d ran %d times", procs, ends, i, c)
				}
			}
		}
	}
}
