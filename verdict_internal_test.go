package qrc

import (
	"math"
	"testing"
	"time"

	"github.com/qrc-lang/qrc/solve"
	"github.com/stretchr/testify/assert"
)

// Every time_limit and stalled result has a verdict: with a diagnosis
// whose iterates were not moving, and without one (a method that keeps no
// record of its steps, as the penalty method).
func TestVerdictOnEveryLimit(t *testing.T) {
	still := &solve.Diagnosis{LastStep: 1e-9, LastRhoHat: 1}
	for _, c := range []struct {
		name               string
		d                  *solve.Diagnosis
		status             solve.Status
		success, certified bool
		want               string
	}{
		{"time limit, feasible, no diagnosis", nil, solve.TimeLimit, true, false, "not certified nearly stationary"},
		{"time limit, infeasible, no diagnosis", nil, solve.TimeLimit, false, false, "before any feasible point"},
		{"time limit, feasible, not moving", still, solve.TimeLimit, true, false, "not certified nearly stationary"},
		{"time limit, certified", still, solve.TimeLimit, true, true, "nearly stationary"},
		{"stalled, no diagnosis", nil, solve.Stalled, true, false, "stalled: the penalty method"},
		{"stalled, diagnosis", still, solve.Stalled, true, false, "stalled: the accurate oracle"},
	} {
		r := &Report{Success: c.success, Stationary: c.certified, Method: "penalty"}
		res := &solve.Result{Status: c.status}
		res.Objective = math.NaN()
		r.diagnose(c.d, res, solve.Settings{TimeLimit: 10 * time.Second}, 0)
		assert.Contains(t, r.Verdict, c.want, c.name)
		if c.status == solve.TimeLimit {
			assert.Contains(t, r.Verdict, "raise Options.TimeLimit (e.g. Options.TimeLimit = 40s)", c.name)
		}
	}
	// a result of another status keeps no verdict
	r := &Report{Success: true}
	r.diagnose(nil, &solve.Result{Status: solve.IterationLimit}, solve.Settings{}, 0)
	assert.Empty(t, r.Verdict)
}
