package main

import (
	"fmt"
	"io"

	"github.com/qrc-lang/qrc/solve"
	"github.com/qrc-lang/qrc/solvecmd"
)

// More exit codes of qrc solve.
const (
	exitInfeasible  = solvecmd.ExitInfeasible
	exitNumerical   = solvecmd.ExitNumerical
	exitInterrupted = solvecmd.ExitInterrupted
)

var solveCommand = &command{
	name:    "solve",
	summary: "solve a model: a feasible, nearly stationary point",
	usage: `Usage: qrc solve [flags] MODEL.qrc

Solve checks and compiles a model and minimises its objective subject to its
constraints with IQRC (Ma, Lin & Yang 2020): an outer proximal-point loop
whose strongly convex subproblems are solved by an oracle (--oracle): to a
certified gap by an augmented Lagrangian method (smooth models) or a bundle
method (models with kinks), or by the paper's switching subgradient method,
or by Yu et al.'s stochastic method on minibatches of the data means. When
the starting point is infeasible, a phase 1 first minimises the largest
constraint violation. The result reports the status, objective,
infeasibility, a stationarity certificate (a bound on the KKT residual at
x_hat, the solution of the subproblem at the returned point, and the
distance to it), every constraint with its slack and multiplier, and the
variables, every value computed on all rows. See docs/solver.md for the
methods and docs/cli.md for the JSON result.

While it runs, a progress table goes to standard error (a live line on a
terminal; nothing with --quiet). Ctrl-C stops the solve after the current
inner step and prints the best point so far.

Exit status: 0 a feasible point was returned (status converged,
iteration_limit, time_limit, uncertified or stalled); 1 the model, data or
start file has errors; 2 bad command line, or an output file could not be
written; 3 infeasible (no feasible point found), or time_limit before any
feasible point; 4 numerical_error (the message names the expression);
5 unbounded (the objective has no minimum on the feasible set);
130 interrupted.

Flags:
  --method M         iqrc (default), stochastic (iqrc with --oracle
                     stochastic) or penalty: the exact penalty
                     trust-region method of Cartis, Gould & Toint (2011),
                     the paper's baseline (docs/penalty.md); it uses --eps,
                     --outer (its iteration limit), --time-limit, --start
  --rho-hat R        the proximal parameter's start (default 1, the paper's,
                     or twice the derived rho, below); it is doubled when a
                     subproblem turns out not to be convex, and halved while
                     the steps contract slowly (not below twice a derived rho)
  --rho R            the weak-convexity modulus, < rho-hat (default: the
                     rho qrc check derives when neither --rho nor --rho-hat
                     is given and 2 rho <= 64, rho-hat then starting at
                     max(1, 2 rho); else rho-hat/2; docs/analysis.md)
  --theory           set EpsHat, --inner (K) and --outer (T) by the paper's
                     formulas (Algorithm 1, Algorithm 2 line 3, Theorem 1)
                     from the derived rho, M, the domain's diameter D and
                     --sigma; they are printed, and can be huge
  --sigma S          the uniform Slater constant sigma_eps that --theory
                     assumes (default 1; qrc cannot derive it)
  --eps E            target accuracy: feasibility and stationarity (default 1e-3)
  --inner K          switching and stochastic oracles: inner iterations per
                     outer step (default 1000)
  --outer T          most outer iterations (default: none for the smooth and
                     bundle oracles, which stop on the certificate, the time
                     limit or no progress over 100 steps; 100 for switching
                     and stochastic)
  --oracle O         the subproblem solver: smooth (augmented Lagrangian,
                     certified gap; differentiable models), bundle (cutting
                     planes, certified gap; any model), switching (Algorithm
                     2, the switching subgradient method on all rows; also
                     called deterministic), stochastic (Algorithm 3, Yu et
                     al.'s method with virtual queues, on minibatches of the
                     data means), dynamic (smooth, dual or bundle on a
                     uniform sample of the data means' rows with control
                     variates from all rows, warm-started, finishing on
                     all rows; dual for a piecewise-linear model),
                     smoothed (the smooth oracle on the model with every
                     pos, abs, hinge, mcp and scad kink smoothed, mu
                     decreasing, the gap certified on the exact functions;
                     models whose kinks enter linearly with affine
                     arguments; never picked by auto), dual (the dual of
                     (7) by coordinate ascent with an exact finish,
                     certified gap; models whose functions are sums of pos,
                     abs and hinge of affine scores plus affine rests),
                     prox (the smooth oracle's augmented Lagrangian with
                     proximal gradient steps that keep pos, abs, hinge, mcp
                     and scad of single variables exact; smooth
                     constraints, boxes on those variables), epigraph (each
                     kink lifted to an epigraph variable: a linear program
                     solved exactly by a sparse interior-point method when
                     every piece is affine, else sequential quadratic
                     programming over sparse programs; maxima, pos, abs,
                     hinge and norms of smooth terms, affine equalities,
                     boxes), or auto (the default): dynamic when the data
                     means run over at least 50000 rows in all, else
                     epigraph for a linear program (affine pieces), smooth
                     for a differentiable model, prox for one whose kinks
                     are all of single variables in the objective, epigraph
                     when every kink lifts and there are no data means,
                     dual for a piecewise-linear one without equalities and
                     bundle for any other with a kink
  --sample N         dynamic oracle: the sample's rows, over all the row
                     sets the data means run over (default 10000)
  --sample-rounds R  dynamic oracle: R rounds on the sample with control
                     variates from all rows, then all rows (default 2, up
                     to 4 while a round stops at its limit of 20 steps); 0
                     runs growing samples without them (--sample-growth)
  --sample-growth G  dynamic oracle with --sample-rounds 0: each sample has G
                     times the rows of the last (default 10), up to a third
                     of all rows; then all
  --finish F         dynamic oracle: rows (default), a last stage on all
                     rows; or rounds, the schedule of qrc-beam solve in
                     memory: rounds with control variates, each anchored
                     at an evaluation on all rows, until one at --eps
                     converges without moving the point, on the sample
                     qrc-beam draws (--sample rows, seeded by --seed); the
                     model must have one data set (docs/distributed.md)
  --batch B          rows drawn from each set of rows a data mean runs over,
                     per stochastic step (default 64)
  --allow-biased     let the stochastic oracle sample means that sit inside a
                     nonlinearity (qrc check lists them); their estimates
                     are biased
  --v V, --alpha A   Algorithm 3's V and alpha (default sqrt(inner), inner)
  --time-limit D     stop after this long: seconds (10, 0.5) or a duration
                     (30s, 2m); default none. The certificate and the
                     stochastic oracle's polish get at most 0.5 s more;
                     when the certificate cannot finish, the result says so
  --pick last|random return the last outer iterate (default) or x_R with R
                     uniform, as in Algorithm 1
  --seed S           the seed for --pick random, the minibatches and the
                     restarts (default 1)
  --restarts N       when phase 1 gives up (at a stationary point of the
                     violation, or without progress), try again from N
                     perturbed starts: x0 + s*xi projected onto the domain,
                     xi standard normal (seeded), s = 0.1, 1, 10, 100 ...
                     times max(1, |x0|_inf) (default 4; 0: none)
  --starts N         solve from N starts at once, on the machine's cores:
                     the given one first, then random points of the domain
                     (seeded by --seed + k); the best certified point is
                     returned, and the result lists every start's outcome
                     and the distinct local solutions (default 1)
  --start FILE       start from the point in FILE (a result written by
                     --out or --json, or any point file; see docs/cli.md);
                     --start random: a random start seeded by --seed (each
                     element uniform in its box, or its start plus a scaled
                     normal draw where unbounded; ./random for a file)
  --json             print the result as one JSON object on standard output
  --out FILE         also write the full result as JSON to FILE
  --trace FILE       write one CSV row per outer iteration to FILE
  --checkpoint FILE  write the current outer iterate to FILE (a point file,
                     replaced atomically) at the first outer iteration,
                     every --checkpoint-every (default 10s) and at the end;
                     a killed run resumes with --start FILE
  --checkpoint-every D
                     how often --checkpoint writes (default 10s)
  --quiet            no progress table
  --cpuprofile FILE  write a CPU profile of the whole command (loading,
                     compiling, solving) to FILE, for go tool pprof
` + modelFlagsUsage,
}

func init() { solveCommand.run = runSolve }

func runSolve(args []string, _ io.Reader, stdout, stderr io.Writer) (code int) {
	fs := newFlagSet("solve", solveCommand.usage, stderr)
	flags := solvecmd.RegisterFlags(fs)
	var mf modelFlags
	mf.register(fs)
	cpuprofile := fs.String("cpuprofile", "", "")
	finish := fs.String("finish", finishRows, "")
	file, ok := modelFile(fs, "solve", args, stderr)
	if !ok {
		return exitUsage
	}
	opts, err := flags.Options()
	if err != nil {
		fmt.Fprintf(stderr, "qrc solve: %v\n", err)
		return exitUsage
	}
	switch {
	case *finish != finishRows && *finish != finishRounds:
		fmt.Fprintf(stderr, "qrc solve: --finish must be rows or rounds, not %q\n", *finish)
		return exitUsage
	case *finish == finishRounds && !solve.SameKind(opts.Oracle, solve.Dynamic):
		fmt.Fprintln(stderr, "qrc solve: --finish rounds goes with --oracle dynamic")
		return exitUsage
	}
	if err := flags.CheckProfile(*cpuprofile); err != nil {
		fmt.Fprintf(stderr, "qrc solve: %v\n", err)
		return exitUsage
	}
	// the profile is kept in memory; its file is written at the end
	prof, err := solvecmd.StartCPUProfile(*cpuprofile)
	if err != nil {
		fmt.Fprintf(stderr, "qrc solve: --cpuprofile: %v\n", err)
		return exitUsage
	}
	defer func() { code = prof.End(stderr, "qrc solve", code) }()
	loading := startClock()
	model, ok := loadModel("solve", file, &mf, !*flags.JSON, stderr)
	if !ok {
		prof.Discard()
		return exitInvalid
	}
	if err := prof.Check(); err != nil {
		fmt.Fprintf(stderr, "qrc solve: --cpuprofile: %v\n", err)
		return exitUsage
	}
	if !*flags.Quiet && len(model.Checked().Data) > 0 {
		fmt.Fprintf(stderr, "qrc solve: %s\n", loading.note("loading the data and compiling"))
	}
	if *finish == finishRounds {
		sample, pass, rows, err := roundsInMemory(file, &mf, model, *flags.Sample, *flags.Seed)
		if err != nil {
			fmt.Fprintf(stderr, "qrc solve: %s\n", solvecmd.ToFlags(err.Error()))
			return exitInvalid
		}
		if !*flags.Quiet {
			fmt.Fprintf(stderr, "qrc solve: --finish rounds: %d rows; a sample of %d rows, every evaluation on all rows a full pass\n", rows, sample.Checked().Data[0].Set.N())
		}
		model, opts.FullPass, opts.FullRows = sample, pass, rows
	}

	ctx, release := solvecmd.NotifyStop("qrc")
	defer release()
	run := &solvecmd.Run{Name: "solve", Model: model, X0: model.Start(),
		Flags: flags, Options: opts, Ctx: ctx, Stdout: stdout, Stderr: stderr, Progress: true}
	_, code = run.Solve()
	return code
}
