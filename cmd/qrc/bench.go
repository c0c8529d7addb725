package main

import (
	"fmt"
	"github.com/qrc-lang/qrc/limits"
	"io"
	"runtime"
	"slices"
	"time"

	"github.com/qrc-lang/qrc/point"
	"github.com/qrc-lang/qrc/solvecmd"
)

var benchCommand = &command{
	name:    "bench",
	summary: "time full evaluations of a model",
	usage: `Usage: qrc bench [flags] MODEL.qrc

Bench checks and compiles a model and times full evaluations at its
starting point: the value of the objective and of every expanded
constraint, then a subgradient of each, all at once (what qrc eval
computes, and what a deterministic solver step needs at most). After a warm-up of three
evaluations it runs --evals more and prints the median seconds per
evaluation, the allocations per evaluation (the mean over the timed runs),
the GFLOP/s reached (the model's operations as autodiff.Program.Flops
counts them, over the median time) and the number of threads evaluation
runs on (GOMAXPROCS; set the GOMAXPROCS environment variable to change it).

Exit status: 0 when the model was timed, 1 when it has errors or cannot be
evaluated at its start, 2 for a bad command line.

Flags:
  --evals N          the number of timed evaluations (default 20)
  --json             print {"seconds_per_eval", "allocs_per_eval", "gflops",
                     "evals", "threads"} as one JSON object
` + modelFlagsUsage,
}

func init() { benchCommand.run = runBench }

// benchResult is what qrc bench --json prints.
type benchResult struct {
	SecondsPerEval float64 `json:"seconds_per_eval"`
	AllocsPerEval  float64 `json:"allocs_per_eval"`
	GFlops         float64 `json:"gflops"`
	Evals          int     `json:"evals"`
	Threads        int     `json:"threads"`
}

func runBench(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("bench", benchCommand.usage, stderr)
	asJSON := fs.Bool("json", false, "print the timings as JSON")
	evals := fs.Int("evals", 20, "timed evaluations")
	var mf modelFlags
	mf.register(fs)
	file, ok := modelFile(fs, "bench", args, stderr)
	if !ok {
		return exitUsage
	}
	if *evals < 1 || *evals > limits.MaxBenchEvals {
		fmt.Fprintf(stderr, "qrc bench: --evals must be between 1 and %d (limits.MaxBenchEvals), got %d\n", limits.MaxBenchEvals, *evals)
		return exitUsage
	}
	model, sources, m, ok := loadProgram("bench", file, &mf, !*asJSON, stderr)
	if !ok {
		return exitInvalid
	}
	x := point.Start(model)
	nf := len(m.Functions())
	values := make([]float64, nf)
	rows := make([][]float64, nf)
	for i := range rows {
		rows[i] = make([]float64, m.NumVars())
	}
	full := func() error {
		if err := m.Eval(x, values); err != nil {
			return err
		}
		return m.Jacobian(rows)
	}
	for range 3 {
		if err := full(); err != nil {
			solvecmd.PrintEvalError(stderr, "bench", err, sources)
			return exitInvalid
		}
	}
	times := make([]float64, *evals)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for i := range times {
		t0 := time.Now()
		if err := full(); err != nil {
			solvecmd.PrintEvalError(stderr, "bench", err, sources)
			return exitInvalid
		}
		times[i] = time.Since(t0).Seconds()
	}
	runtime.ReadMemStats(&after)
	slices.Sort(times)
	med := times[len(times)/2]
	if len(times)%2 == 0 {
		med = (times[len(times)/2-1] + times[len(times)/2]) / 2
	}
	res := benchResult{
		SecondsPerEval: med,
		AllocsPerEval:  float64(after.Mallocs-before.Mallocs) / float64(*evals),
		Evals:          *evals,
		Threads:        runtime.GOMAXPROCS(0),
	}
	if med > 0 {
		res.GFlops = m.Flops() / med / 1e9
	}
	if *asJSON {
		if err := writeJSON(stdout, res); err != nil {
			fmt.Fprintf(stderr, "qrc bench: %v\n", err)
			return exitInvalid
		}
		return exitOK
	}
	fmt.Fprintf(stdout, "%s: %d functions, %d variables, %.4g operations per evaluation\n", file, nf, m.NumVars(), m.Flops())
	fmt.Fprintf(stdout, "seconds per evaluation  %.4g (median of %d)\n", res.SecondsPerEval, res.Evals)
	fmt.Fprintf(stdout, "allocations per eval    %.4g\n", res.AllocsPerEval)
	fmt.Fprintf(stdout, "GFLOP/s                 %.4g\n", res.GFlops)
	fmt.Fprintf(stdout, "threads                 %d\n", res.Threads)
	return exitOK
}
