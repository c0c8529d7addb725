package qrc

import (
	"sync"

	"github.com/qrc-lang/qrc/autodiff"
	"github.com/qrc-lang/qrc/problem"
)

// runStates lends the run state of a model's compiled program to the
// solves, evaluations and gradient checks of the model, one at a time
// each: the program's own run state first, then evaluators of the program
// (autodiff.Program.NewEvaluator), made when every run state is lent out
// and kept for the next. So a caller that solves one solve at a time runs
// on the program's own run state, as a model did before it could be
// shared, and n solves at once hold n run states. An evaluator computes
// bit for bit what the program's own methods compute, so a result does
// not depend on which run state it got.
type runStates struct {
	mu   sync.Mutex
	prog *autodiff.Program
	idle []problem.Program // run states not lent out; nil before the first take
	made bool              // whether idle has been given the program's own
}

// take lends a run state, at no sample (every mean over all its rows).
func (s *runStates) take() problem.Program {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.made {
		s.made = true
		return s.prog
	}
	if n := len(s.idle); n > 0 {
		r := s.idle[n-1]
		s.idle = s.idle[:n-1]
		return r
	}
	return s.prog.NewEvaluator()
}

// give returns a run state that take lent, after the caller has reset its
// samples.
func (s *runStates) give(r problem.Program) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.idle = append(s.idle, r)
}
