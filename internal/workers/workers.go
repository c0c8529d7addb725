// Package workers runs the items of a job on the calling goroutine and a
// pool of helper goroutines, one per extra core (GOMAXPROCS-1), started
// once and kept for the life of the process.
//
// Evaluation calls it many times a second with jobs of tens of
// microseconds each. Waking a parked goroutine on an idle core costs far
// more than that on a virtual machine (the core sleeps in the hypervisor:
// 145 µs median, 300 µs at the 90th percentile on the build machine), so
// a helper that finishes a job keeps polling for the next one for a while
// (Spin) before it parks: back-to-back jobs, as in the phases of an
// evaluation and the evaluations of a solve, find their helpers awake.
package workers

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Spin is how long an idle helper keeps polling for a new job before it
// parks. It bounds the processor time a helper burns after the last job.
const Spin = 500 * time.Microsecond

// A Job runs Fn(w, 0), ..., Fn(w, n-1) for each call of Run or RunParts,
// each item once, on the caller (worker w = 0) and whatever helpers join
// (w = 1, 2, ..., below GOMAXPROCS); w lets an item use the scratch space
// of its worker. A Job is not safe for concurrent calls of Run; distinct
// Jobs may run at once.
type Job struct {
	// Fn runs item i on worker w. It is set once, so that a run does not
	// allocate.
	Fn func(w, i int)
	// parts are the runs' parts, one per worker: the items each worker
	// takes first, before it helps with the others'
	parts []part
	// state is the run's generation (high 32 bits), whether the caller
	// has closed it to helpers that have not yet joined, and the number of
	// helpers working on it (the low bits)
	state atomic.Uint64
	gen   uint32
	// joined counts the helpers that joined the run, which numbers them
	joined atomic.Int32
}

// A part is a range of items, taken one at a time from next up to end.
type part struct {
	next atomic.Int64
	end  int64
	_    [48]byte // a cache line of its own: the parts are taken at once
}

const closed = 1 << 31

// MaxHelpers bounds the pool.
const MaxHelpers = 63

// Run runs items 0..n-1 of j on the caller and up to GOMAXPROCS-1
// helpers, in as many equal parts, and returns when all are done.
func (j *Job) Run(n int) {
	w := max(1, min(runtime.GOMAXPROCS(0), n, MaxHelpers+1))
	j.setParts(w)
	for k := range w {
		j.parts[k].next.Store(int64(k * n / w))
		j.parts[k].end = int64((k + 1) * n / w)
	}
	j.run()
}

// RunParts runs items 0..ends[len(ends)-1]-1 of j on the caller and up to
// len(ends)-1 helpers and returns when all are done: worker w first takes
// the items from ends[w-1] (0 for w = 0) to ends[w]-1, then helps with
// the other parts. A caller that gives each worker the same data in every
// run keeps that data in the worker's cache. Parts beyond MaxHelpers+1
// join the last one.
func (j *Job) RunParts(ends []int) {
	if len(ends) == 0 {
		return
	}
	w := min(len(ends), MaxHelpers+1)
	j.setParts(w)
	lo := 0
	for k, e := range ends[:w] {
		if k == w-1 {
			e = ends[len(ends)-1]
		}
		j.parts[k].next.Store(int64(lo))
		j.parts[k].end = int64(e)
		lo = e
	}
	j.run()
}

// setParts sets out w parts (at most MaxHelpers+1).
func (j *Job) setParts(w int) {
	if cap(j.parts) < w {
		j.parts = make([]part, MaxHelpers+1)
	}
	j.parts = j.parts[:w]
}

// run runs the parts set out by Run or RunParts. Helpers that have not
// joined by the time the caller has run out of items are not waited for:
// they find the run closed and skip it.
func (j *Job) run() {
	helpers := len(j.parts) - 1
	if helpers <= 0 {
		j.work(0)
		return
	}
	pool.start(helpers)
	j.gen++
	j.joined.Store(0)
	j.state.Store(uint64(j.gen) << 32)
	pool.current.Store(j)
	// wake parked helpers; those spinning see pool.current first
	for range min(helpers, int(pool.parked.Load())) {
		select {
		case pool.tickets <- ticket{j, j.gen}:
		default: // the helpers are behind; do with fewer
		}
	}
	j.work(0)
	for {
		s := j.state.Load()
		if j.state.CompareAndSwap(s, s|closed) {
			break
		}
	}
	// the helpers that joined are finishing their last item
	for j.state.Load()&(closed-1) != 0 {
		runtime.Gosched()
	}
	// the pool must not keep the job (and what its Fn holds) alive
	pool.current.CompareAndSwap(j, nil)
}

// work runs worker w's part, then the items left in the others'.
func (j *Job) work(w int) {
	for k := range j.parts {
		p := &j.parts[(w+k)%len(j.parts)]
		for {
			i := p.next.Add(1) - 1
			if i >= p.end {
				break
			}
			j.Fn(w, int(i))
		}
	}
}

// join runs the items of run gen of j that are left, unless the run has
// moved on or been closed, and reports whether it joined.
func (j *Job) join(gen uint32) bool {
	for {
		s := j.state.Load()
		if uint32(s>>32) != gen || s&closed != 0 {
			return false
		}
		if j.state.CompareAndSwap(s, s+1) {
			if w := int(j.joined.Add(1)); w < len(j.parts) {
				j.work(w)
			}
			j.state.Add(^uint64(0)) // leave
			return true
		}
	}
}

// A ticket asks a parked helper to join run gen of job j.
type ticket struct {
	j   *Job
	gen uint32
}

// The pool grows to GOMAXPROCS-1 helpers the first time that many are
// wanted; they live as long as the process.
type helperPool struct {
	mu      sync.Mutex
	started int
	tickets chan ticket
	// current is the job of the latest run, which spinning helpers join
	current atomic.Pointer[Job]
	// parked counts the helpers waiting on tickets
	parked atomic.Int32
}

var pool = helperPool{tickets: make(chan ticket, MaxHelpers)}

// start makes sure there are at least n helpers.
func (p *helperPool) start(n int) {
	p.mu.Lock()
	for p.started < n {
		p.started++
		p.parked.Add(1)
		go p.helper()
	}
	p.mu.Unlock()
}

// helper waits for a ticket, joins its run, then polls the pool's
// current job for Spin before it parks again.
func (p *helperPool) helper() {
	for t := range p.tickets {
		p.parked.Add(-1)
		t.j.join(t.gen)
		p.spin(t.j, t.gen)
		p.parked.Add(1)
	}
}

// spin joins the runs published after run gen of j until none comes for
// Spin and minPolls polls (so that a helper the system did not run for a
// while does not count that time as idle). It polls without yielding:
// runtime.Gosched would wake idle processors, starting threads.
func (p *helperPool) spin(j *Job, gen uint32) {
	last := time.Now()
	for polls := 1; ; polls++ {
		if c := p.current.Load(); c != nil {
			s := c.state.Load()
			if g := uint32(s >> 32); (c != j || g != gen) && s&closed == 0 {
				j, gen = c, g
				if c.join(g) {
					last, polls = time.Now(), 0
					continue
				}
			}
		}
		if polls >= minPolls && polls%1024 == 0 && time.Since(last) > Spin {
			return
		}
	}
}

// minPolls is the fewest polls of an idle helper before it parks, well
// under Spin's worth on the build machine.
const minPolls = 1 << 16
