package solve

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/floats"
)

// The probe: a certificate of near stationarity holds at a saddle point or
// a local maximum as well as at a minimum (the subproblem (7) at such a
// point, with RhoHat above the curvature, is solved by the point itself).
// Before a nonconvex problem's point is returned as Converged, the solver
// looks around it for a feasible point with a lower objective: along each
// coordinate axis and probeRandom random directions (seeded by
// Settings.Seed), both ways, at the steps probeSteps times max(1,
// ||x||_inf), each point projected onto X, the shortest steps first, at
// most max(probeMinPoints, a quarter of the solve's evaluations) points. A
// point y found with
//
//	f0 < f0(x) - max(probeDrop (1 + |f0(x)|), Eps ||y - x||)   and   max_i fi <= 0
//
// (a drop steeper than the slope Eps that near stationarity allows)
// shows x is no minimum: the solve goes on from it (at most maxEscapes
// times in one solve). A probe that finds none is evidence, not proof, of
// a local minimum; Result.Probe says what was tried. The probe is not part
// of the paper's method, which certifies near stationarity only
// (docs/solver.md).

const (
	probeRandom = 8       // random directions (each both ways)
	probeAxes   = 64      // at most this many coordinate axes (a random choice of them beyond)
	probeDrop   = 1e-6    // the relative decrease that counts
	maxEscapes  = 10      // escapes from non-minima in one solve at most
	probeSeed   = 0x5ad1e // mixed with Settings.Seed
	// probeMinPoints is the fewest points a probe may evaluate; it may
	// evaluate up to a quarter of the solve's evaluations so far beyond
	// that, so that on a model with many variables and data rows the
	// probe does not cost more than the solve (the shortest steps are
	// tried first).
	probeMinPoints = 160
)

// probeSteps are the probe's step lengths relative to max(1, ||x||_inf).
var probeSteps = [...]float64{1e-4, 1e-2, 1}

// ProbeReport says what the probe around the returned point tried.
type ProbeReport struct {
	// Points is the number of points evaluated around the returned
	// point, Directions the directions (each tried both ways) and Steps
	// the step lengths (absolute).
	Points, Directions int
	Steps              []float64
	// Escapes lists the outer iterates (Point.T) the solve left because a
	// probe found a feasible point lower than them: saddle points, maxima
	// or flat regions that the certificate alone would have called
	// converged.
	Escapes []int
	// Found reports that the last probe found a lower feasible point (a
	// point certified only after the iterations ended is then not called
	// converged).
	Found bool
}

// probe looks around cur for a feasible point with a lower objective, or,
// with violation set, for a point with a lower violation g = max_i fi
// (phase 1's objective); it returns that point (numbered cur.T + 1) or
// nil. The solver's values are left at the last point evaluated.
func (s *solver) probe(cur *Point, violation bool) (*Point, error) {
	if s.probes == nil {
		s.probes = &ProbeReport{}
	}
	pr := s.probes
	n := s.n
	rng := rand.New(rand.NewPCG(s.set.Seed^probeSeed, uint64(cur.T)))
	var dirs [][]float64
	axes := rng.Perm(n)
	for _, j := range axes[:min(n, probeAxes)] {
		d := make([]float64, n)
		d[j] = 1
		dirs = append(dirs, d)
	}
	for range probeRandom {
		d := make([]float64, n)
		for j := range d {
			d[j] = rng.NormFloat64()
		}
		nd := norm(d)
		for j := range d {
			d[j] /= nd
		}
		dirs = append(dirs, d)
	}
	scale := math.Max(1, floats.Norm(cur.X, math.Inf(1)))
	pr.Directions, pr.Steps, pr.Points = len(dirs), pr.Steps[:0], 0
	value := func(f []float64) float64 {
		if violation {
			return gOf(f)
		}
		return f[0]
	}
	f0 := value(cur.F)
	drop := probeDrop * (1 + math.Abs(f0))
	y := make([]float64, n)
	var best *Point
	budget := max(probeMinPoints, s.stats.Evals/4)
	for _, h := range probeSteps {
		if pr.Points >= budget {
			break
		}
		pr.Steps = append(pr.Steps, h*scale)
		for _, d := range dirs {
			for _, sign := range []float64{1, -1} {
				if s.halted() != running || pr.Points >= budget {
					break
				}
				for j := range y {
					y[j] = cur.X[j] + sign*h*scale*d[j]
				}
				s.project(y)
				pr.Points++
				if err := s.eval(y); err != nil {
					// a probe outside the functions' domain (a log of a
					// negative number): not a point to go to
					continue
				}
				need := f0 - drop
				if !violation {
					// a point nearly stationary to Eps may descend at
					// slope Eps: only a steeper drop shows it is no
					// minimum
					need = min(need, f0-s.set.Eps*dist(y, cur.X))
				}
				if !violation && gOf(s.vals) > 0 || value(s.vals) >= need {
					continue
				}
				if best == nil || value(s.vals) < value(best.F) {
					p := pointAt(y, s.vals, cur.T+1)
					best = &p
				}
			}
		}
		if best != nil {
			pr.Found = true
			return best, nil
		}
	}
	pr.Found = false
	return nil, nil
}

// convergedStatus is the status of a point certified nearly stationary
// that escape did not leave: Converged, or Stalled when the probe found a
// lower feasible point near it after the escapes ran out (it is no
// minimum, and the solve has left maxEscapes such points already).
func (s *solver) convergedStatus() Status {
	if s.probes != nil && s.probes.Found {
		return Stalled
	}
	return Converged
}

// probeAllowed reports whether the probe runs around pt: not for a problem
// proven convex, nor with the stochastic oracle or in the dynamic
// oracle's stages (noProbe), nor at a point without values.
func (s *solver) probeAllowed(pt *Point) bool {
	return !s.p.Convex && !s.set.noProbe && !s.steps.estimates() && pt.F != nil
}

// escape runs the probe around cur, a point about to be returned as
// Converged, when the problem is not known to be convex. When the probe
// finds a lower feasible point and escapes are left, cur becomes it (an
// outer iterate of phase 2, recorded) and escape reports true: the solve
// goes on.
func (s *solver) escape(cur *Point) (bool, error) {
	if !s.probeAllowed(cur) {
		return false, nil
	}
	next, err := s.probe(cur, false)
	if err != nil || next == nil || len(s.probes.Escapes) >= maxEscapes {
		// with the escapes used up, the probe's finding (Found) stands:
		// the caller does not call cur converged (convergedStatus)
		return false, err
	}
	s.probes.Escapes = append(s.probes.Escapes, cur.T)
	stepLen := dist(next.X, cur.X)
	*cur = *next
	s.stats.Outer++
	s.track(cur)
	s.cert, s.certified = nil, nil
	s.lastStep = 0
	s.recordOuter(cur, oracleInfo{}, false, stepLen, false)
	return true, nil
}
