// Package problem turns a checked model and its compiled program into a
// solve.Problem: values and subgradients from the program, the projection
// onto the variables' domains, and, for the stochastic oracle, a Sampler
// that draws minibatches of the model's data means.
package problem

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/qrc-lang/qrc/autodiff"
	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/domain"
	"github.com/qrc-lang/qrc/solve"
)

// Defaults of Options.
const (
	// DefaultBatch is the minibatch size drawn from each set of rows a
	// data mean runs over.
	DefaultBatch = 64
	// DefaultMonitorRows is the size of the fixed sample the solver
	// monitors progress on when a row set is larger than it; smaller sets
	// are monitored on all their rows.
	DefaultMonitorRows = 100000
)

// Options control the Sampler.
type Options struct {
	// Batch is the number of rows drawn, uniformly with replacement, from
	// each sampleable row set at every stochastic step (at most the set's
	// size, without replacement then). 0 means DefaultBatch.
	Batch int
	// MonitorRows caps the rows of each set the solver evaluates outer
	// iterates on while it runs; 0 means DefaultMonitorRows, a negative
	// value no cap. The final report is always on every row.
	MonitorRows int
	// Seed seeds the draw of the fixed monitoring samples.
	Seed uint64
}

// Program is what a Problem evaluates: an *autodiff.Program, or one of
// its *autodiff.Evaluators (run state of its own, so that problems of one
// compiled model run on several goroutines at once). The Problem and its
// Sampler call its methods, so it must not be in use elsewhere while the
// Problem is.
type Program interface {
	NumVars() int
	Samples() []autodiff.Sample
	Eval(x, values []float64) error
	Gradient(w, g []float64) error
	Jacobian(rows [][]float64) error
	SetSample(s int, positions []int) error
	ResetSamples()
}

// New wraps a compiled model as a solve.Problem. X is the product of the
// variables' domains, given both as a projection and as inequalities (for
// methods that do not project, such as package penalty). Its Sampler draws minibatches of every data mean the
// program can sample (autodiff.Program.Samples); it is nil when there are
// none.
func New(m *check.Model, prog Program, opts Options) *solve.Problem {
	names := make([]string, len(m.Constraints))
	for i, c := range m.Constraints {
		names[i] = c.Name
	}
	vars := m.Vars
	p := &solve.Problem{
		N:        prog.NumVars(),
		M:        len(m.Constraints),
		Eval:     prog.Eval,
		Grad:     prog.Gradient,
		Jacobian: prog.Jacobian,
		Names:    names,
		Project: func(x []float64) {
			for _, v := range vars {
				v.Domain.Project(v.Of(x))
			}
		},
		DomainConstraints: func(x []float64, cs []domain.Constraint) []domain.Constraint {
			for _, v := range vars {
				n := len(cs)
				cs = v.Domain.Constraints(v.Of(x), cs)
				for i := n; i < len(cs); i++ {
					cs[i].Start += v.Offset
				}
			}
			return cs
		},
	}
	p.Smooth, _ = check.Smooth(m)
	if s := NewSampler(prog, opts); s != nil {
		p.Sampler = s
	}
	return p
}

// Sampler draws minibatches of a program's data means; it implements
// solve.Sampler.
type Sampler struct {
	prog    Program
	batch   []int   // per row set
	pos     [][]int // the current draw's positions, per row set
	monitor [][]int // the fixed monitoring sample per row set; nil for all rows
	perm    [][]int // Subsample's fixed random order of every row set's rows, drawn on first use
	sel     [][]int // the positions the program now runs each row set over; nil for all rows
	seed    uint64
}

// NewSampler returns a Sampler for prog's sampleable data means, or nil
// when it has none.
func NewSampler(prog Program, opts Options) *Sampler {
	sets := prog.Samples()
	if len(sets) == 0 {
		return nil
	}
	batch := opts.Batch
	if batch <= 0 {
		batch = DefaultBatch
	}
	mon := opts.MonitorRows
	if mon == 0 {
		mon = DefaultMonitorRows
	}
	s := &Sampler{prog: prog, batch: make([]int, len(sets)), pos: make([][]int, len(sets)), monitor: make([][]int, len(sets)), sel: make([][]int, len(sets)), seed: opts.Seed}
	rng := rand.New(rand.NewPCG(opts.Seed, 0x2545f4914f6cdd1d))
	for i, set := range sets {
		s.batch[i] = min(batch, set.Rows)
		s.pos[i] = make([]int, s.batch[i])
		if mon > 0 && set.Rows > mon {
			s.monitor[i] = rng.Perm(set.Rows)[:mon]
		}
	}
	return s
}

// Draw selects a fresh minibatch for every row set: Batch rows uniformly
// with replacement, or, when Batch is at least the set's size, every row
// (then the set is left on its full data, which Monitor and Full restore,
// rather than regathered).
// Each mean's estimate is the plain mean over its minibatch, so it is
// unbiased, and so is its subgradient.
func (s *Sampler) Draw(rng *rand.Rand) error {
	for i, set := range s.prog.Samples() {
		pos := s.pos[i]
		if len(pos) == set.Rows {
			continue // every row: the full data, which is already selected
		}
		for j := range pos {
			pos[j] = rng.IntN(set.Rows)
		}
		if err := s.prog.SetSample(i, pos); err != nil {
			return fmt.Errorf("problem: %w", err)
		}
		s.sel[i] = pos
	}
	return nil
}

// Monitor selects the monitoring samples (every row of the sets no larger
// than MonitorRows) and reports whether that is all the data.
func (s *Sampler) Monitor() bool {
	exact := true
	s.Full()
	for i, m := range s.monitor {
		if m != nil {
			exact = false
			if err := s.prog.SetSample(i, m); err != nil {
				panic("problem: " + err.Error()) // cannot happen: the positions were drawn in range
			}
			s.sel[i] = m
		}
	}
	return exact
}

// Full selects every row of every set.
func (s *Sampler) Full() {
	s.prog.ResetSamples()
	clear(s.sel)
}

// Selected returns, per row set (in the order of autodiff.Program.Samples),
// the positions into its rows that the program's means now run over, as
// the last Draw, Monitor, Subsample or Full of this Sampler set them: nil
// for every row. The slices are the Sampler's own, valid until its next
// call that changes the selection; the caller must not modify them.
func (s *Sampler) Selected() [][]int { return s.sel }

// Rows is the number of rows over all the sampled row sets
// (solve.Subsampler).
func (s *Sampler) Rows() int { return SampledRows(s.prog) }

// Subsample selects, for every sampled row set, a fixed uniform sample
// without replacement of ceil(frac * rows) of its rows (at least one, at
// most all), and returns the rows selected in all (solve.Subsampler, for
// the dynamic oracle). The sample of a set is a prefix of one random
// permutation of its rows, drawn once from the seed of Options on a
// stream of its own, so that the samples of growing fractions are
// nested; the prefix is sorted, so that the rows are gathered in file
// order.
func (s *Sampler) Subsample(frac float64) (int, error) {
	if !(frac > 0) {
		return 0, fmt.Errorf("problem: a subsample of a fraction %v of the rows", frac)
	}
	sets := s.prog.Samples()
	if s.perm == nil {
		s.perm = make([][]int, len(sets))
		rng := rand.New(rand.NewPCG(s.seed, 0x6a09e667f3bcc909))
		for i, set := range sets {
			s.perm[i] = rng.Perm(set.Rows)
		}
	}
	s.Full()
	total := 0
	for i, set := range sets {
		n := min(set.Rows, max(1, int(math.Ceil(frac*float64(set.Rows)))))
		total += n
		if n == set.Rows {
			continue // every row: the set stays on its full data
		}
		pos := slices.Clone(s.perm[i][:n])
		slices.Sort(pos)
		if err := s.prog.SetSample(i, pos); err != nil {
			return 0, fmt.Errorf("problem: %w", err)
		}
		s.sel[i] = pos
	}
	return total, nil
}

// FullCost is the cost of an evaluation on all rows relative to one on a
// minibatch: the rows of every sampled set over the rows drawn from them
// (solve.CostReporter).
func (s *Sampler) FullCost() float64 {
	drawn := 0
	for _, b := range s.batch {
		drawn += b
	}
	return float64(SampledRows(s.prog)) / float64(drawn)
}

// Batches returns the minibatch size of each row set, in the order of
// autodiff.Program.Samples.
func (s *Sampler) Batches() []int { return s.batch }

// MonitorRows returns, per row set, the size of its monitoring sample, or
// 0 when it is monitored on all rows.
func (s *Sampler) MonitorRows() []int {
	out := make([]int, len(s.monitor))
	for i, m := range s.monitor {
		out[i] = len(m)
	}
	return out
}

// Bias is a data mean the Sampler would sample whose minibatch estimate
// biases its function.
type Bias struct {
	Function string // "objective" or the constraint's name
	check.BiasedMean
}

// Biased returns the means of the model's functions that check.BiasedMeans
// reports and that the program samples (a mean the program cannot sample,
// one with a filter coupling two indices, always runs over all its rows and
// biases nothing). A function calling the same user function twice is
// reported once per mean and reason.
func Biased(m *check.Model, prog Program) []Bias {
	sampled := map[string]bool{}
	for _, set := range prog.Samples() {
		for _, pos := range set.Means {
			sampled[pos.String()] = true
		}
	}
	var out []Bias
	seen := map[string]bool{}
	add := func(name string, e check.Expr) {
		for _, b := range check.BiasedMeans(e) {
			key := name + "|" + b.Mean.Src().Pos().String() + "|" + b.Why
			if sampled[b.Mean.Src().Pos().String()] && !seen[key] {
				seen[key] = true
				out = append(out, Bias{Function: name, BiasedMean: b})
			}
		}
	}
	if m.Objective != nil {
		add("objective", m.Objective.Expr)
	}
	for _, c := range m.Constraints {
		add(c.Name, c.F)
	}
	return out
}

// SampledRows returns the total number of rows over the program's
// sampleable row sets: the work of one full evaluation of its data means.
func SampledRows(prog Program) int {
	n := 0
	for _, s := range prog.Samples() {
		n += s.Rows
	}
	return n
}
