package main

import (
	"fmt"
	"strconv"

	"github.com/qrc-lang/qrc"
	"github.com/qrc-lang/qrc/distrib"
	"github.com/qrc-lang/qrc/solve"
)

// Finishes of the dynamic oracle (qrc solve --finish).
const (
	finishRows   = "rows"   // a last stage on every row (MinimizeDynamic)
	finishRounds = "rounds" // qrc-beam's schedule, in memory
)

// roundsInMemory prepares qrc solve --finish rounds: the schedule of
// qrc-beam solve (docs/distributed.md) with the data in memory. It
// returns the model on the sample qrc-beam draws (distrib.Sample: the
// same rows of the whole data set for the same --sample and --seed,
// however the set is split into shards) and, as solve.FullPass, the
// whole model's values and gradients at a point: the evaluation on all
// rows that each of qrc-beam's full passes equals to 1e-12 relative. The
// solver's rounds are then qrc-beam's, the two differing only by the
// rounding of those evaluations. whole must have exactly one data set.
func roundsInMemory(file string, mf *modelFlags, whole *qrc.Model, sampleRows int, seed uint64) (*qrc.Model, solve.FullPass, int, error) {
	sets := whole.Checked().Data
	if len(sets) != 1 {
		return nil, nil, 0, fmt.Errorf("--finish rounds needs a model with exactly one data set, not %d", len(sets))
	}
	set := sets[0].Set
	rows := set.N()
	sample, err := distrib.Sample("sample of "+strconv.Itoa(rows)+" rows", set, seed, sampleRows)
	if err != nil {
		return nil, nil, 0, err
	}
	model, err := qrc.Load(file, append(mf.options(), qrc.WithData(sets[0].Name, sample))...)
	if err != nil {
		return nil, nil, 0, err
	}
	prog := whole.Program()
	nf, nv := len(prog.Functions()), prog.NumVars()
	pass := func(x []float64) ([]float64, [][]float64, error) {
		vals := make([]float64, nf)
		if err := prog.Eval(x, vals); err != nil {
			return nil, nil, err
		}
		grads := make([][]float64, nf)
		for f := range grads {
			grads[f] = make([]float64, nv)
		}
		return vals, grads, prog.Jacobian(grads)
	}
	return model, pass, rows, nil
}
