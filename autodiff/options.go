package autodiff

import (
	"fmt"
	"slices"

	"github.com/qrc-lang/qrc/check"
)

// Options are how a model is compiled. The zero value is what Compile
// does.
type Options struct {
	// Disable names optional passes of the pass table (passes.go) that do
	// not run. Every optional pass is an optimization: a program compiled
	// without it computes the same values and subgradients, only slower or
	// in more memory; bit for bit, but for "shares", whose sharers' sums
	// are formed in another order (equal to rounding).
	Disable []string

	// verify runs the IR verifier (verify.go) after every pass; the tests
	// set it.
	verify bool
	// tune replaces the thresholds below which a mechanism stays off
	// (defaultTuning); nil for the defaults. The tests lower them to reach
	// the mechanisms with small data.
	tune *tuning
}

// tuning holds the sizes from which compilation and evaluation turn a
// mechanism on. A program keeps the tuning it was compiled with.
type tuning struct {
	// parallelMinRows is the fewest rows, over a phase's active segments,
	// that are run on more than one core (parallel.go). A smaller phase
	// runs on the caller: a helper descheduled in the middle of a block
	// holds up the caller for as long, which on a busy machine costs far
	// more than such a phase gains.
	parallelMinRows int
	// streamMinBytes is the size of the rows' registers, over the whole
	// program, from which the program streams (stream.go): below it they
	// are kept whole.
	streamMinBytes int64
	// streamAuxMaxBytes is the size of the windowed registers' aux over
	// every row up to which it is kept for every row, unless that is more
	// than a quarter of the memory a data set may take (data.MemoryLimit).
	// Above it the aux is windowed too, and a reverse pass recomputes the
	// rows' values to get it.
	streamAuxMaxBytes int64
	// streamBlockBytes is the size aimed at for one block of a streamed
	// axis's registers, so that a worker's windows stay in its core's
	// cache; its blocks have from streamMinRows to streamMaxRows rows.
	streamBlockBytes             int64
	streamMinRows, streamMaxRows int
	// rowRefMinBytes is the size of a block of consecutive rows from which
	// it is kept by reference (rows.go); rowRefSubsetMinBytes, of other
	// blocks (-1: a 32nd of the data memory limit).
	rowRefMinBytes, rowRefSubsetMinBytes int64
}

// defaultTuning returns the thresholds Compile uses (docs/performance.md
// gives the measurements behind them).
func defaultTuning() tuning {
	return tuning{
		parallelMinRows:      4096,
		streamMinBytes:       2 << 20,
		streamAuxMaxBytes:    1 << 30,
		streamBlockBytes:     256 << 10,
		streamMinRows:        blockRows,
		streamMaxRows:        4096,
		rowRefMinBytes:       64 << 20,
		rowRefSubsetMinBytes: -1,
	}
}

// CompileWith is Compile with options.
func CompileWith(m *check.Model, opts Options) (*Program, error) { return compile(m, nil, opts) }

// tuning returns the options' thresholds.
func (o Options) tuning() tuning {
	if o.tune != nil {
		return *o.tune
	}
	return defaultTuning()
}

// disabled returns the set of passes the options turn off, or an error
// naming a pass that is not in the table or that cannot be turned off.
func (o Options) disabled() ([]bool, error) {
	off := make([]bool, len(passes))
	for _, name := range o.Disable {
		i := slices.IndexFunc(passes[:], func(ps pass) bool { return ps.name == name })
		switch {
		case i < 0:
			return nil, fmt.Errorf("autodiff: no pass %q to disable (the passes are in passes.go)", name)
		case !passes[i].optional:
			return nil, fmt.Errorf("autodiff: pass %q cannot be disabled: the program needs it", name)
		}
		off[i] = true
	}
	return off, nil
}
