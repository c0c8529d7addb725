// Command qrc-beam solves a model whose data set is made of shards with
// the full passes of dynamic sampling run as Apache Beam pipelines:
//
//	qrc-beam solve [qrc solve flags] [--data PATH] [--set NAME=EXPR]
//	               [--runner prism|dataflow|flink|spark|universal] [Beam flags] MODEL.qrc
//
// The data set (the model must declare one) is the directory or glob its
// loader names, or --data PATH. The coordinator (this process) counts the
// rows of every shard and every data mean, draws a uniform seeded sample
// of --sample rows (10000), both by pipelines, and then runs the dynamic
// oracle on the sample with every evaluation on all rows a pipeline over
// the shards (docs/distributed.md). --runner prism (the default) runs the
// pipelines in this process; Beam's other flags (--endpoint, --project,
// --region, --temp_location, --worker_binary ...) pass through to Beam,
// and a worker started by a runner enters Beam's worker mode from them.
//
// It is a command of its own rather than a subcommand of qrc because the
// Beam SDK and its runners more than double the binary (docs/distributed.md
// has the sizes).
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/qrc-lang/qrc"
	"github.com/qrc-lang/qrc/beamrun"
	"github.com/qrc-lang/qrc/distrib"
	"github.com/qrc-lang/qrc/solve"
	"github.com/qrc-lang/qrc/solvecmd"
)

const usage = `Usage: qrc-beam solve [flags] MODEL.qrc

Solves MODEL.qrc as qrc solve --oracle dynamic does, with the data set's
full passes run as Apache Beam pipelines over its shards (a directory or a
glob, docs/distributed.md). It takes qrc solve's flags and:

  --data PATH        the data set's shards (a directory or glob) instead of
                     the model's path
  --set NAME=EXPR    override a parameter (repeatable)
  --runner R         Beam's runner: prism (default: in this process),
                     dataflow, flink, spark, universal (with --endpoint)
  --sample-dir DIR   where pipelines write their output for the coordinator
                     (default: a fresh temporary directory; on Dataflow a
                     bucket path)
  --beam-log         show the log lines of Beam's SDK and runner
  --cpuprofile FILE  write a CPU profile of the whole command to FILE, as
                     qrc solve does
  --finish rounds    the only schedule it runs (qrc solve --finish rounds)

and every flag of Beam's Go SDK (--endpoint, --project, --region,
--temp_location, --staging_location, --worker_binary, --environment_type ...).
`

type assigns [][2]string

func (a *assigns) String() string { return fmt.Sprint(*a) }
func (a *assigns) Set(v string) error {
	name, expr, ok := strings.Cut(v, "=")
	if !ok || name == "" {
		return fmt.Errorf("want NAME=EXPR, not %q", v)
	}
	*a = append(*a, [2]string{name, expr})
	return nil
}

// main ends as qrc solve does (solvecmd's Stdio, Finish, NotifyStop): a
// closed pipe is a write error, not a death by SIGPIPE; a failed write to
// standard output or error is exit 2; SIGINT, SIGTERM and SIGHUP stop the
// solve with its result printed and --out written (exit 130).
func main() {
	stdout, stderr := solvecmd.Stdio()
	code := run(os.Args[1:], stdout, stderr)
	os.Exit(solvecmd.Finish("qrc-beam", code, stdout, stderr))
}

// runners are the --runner values the Beam runners linked in (beamx's
// imports) register; any other would end the process in Beam with exit 1
// and, its log hidden, no word.
var runners = []string{"prism", "PrismRunner", "direct", "DirectRunner", "dataflow", "DataflowRunner",
	"flink", "FlinkRunner", "spark", "SparkRunner", "universal", "portable", "PortableRunner"}

// prog is the command's name in messages.
const prog = "qrc-beam solve"

func run(args []string, stdout, stderr io.Writer) (code int) {
	// Beam's flags are registered on flag.CommandLine, which beam.Init
	// and the runners read: parse it, as qrc solve parses its flags
	// (before or after the model file, "--" ending them), without exiting
	// on an error.
	fs := flag.CommandLine
	fs.Init("solve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usage) }
	flags := solvecmd.RegisterFlags(fs)
	var sets assigns
	fs.Var(&sets, "set", "")
	dataPath := fs.String("data", "", "")
	outDir := fs.String("sample-dir", "", "")
	beamLog := fs.Bool("beam-log", false, "")
	cpuprofile := fs.String("cpuprofile", "", "")
	finish := fs.String("finish", "rounds", "")
	if len(args) > 0 && args[0] == "solve" {
		args = args[1:]
	}
	files, err := solvecmd.ParseInterspersed(fs, args, prog, "qrc-beam solve -h")
	if errors.Is(err, flag.ErrHelp) {
		return solvecmd.ExitOK
	}
	if err != nil {
		return solvecmd.ExitUsage
	}
	beam.Init() // a worker started by a runner runs its harness here and exits
	if !*beamLog {
		// the SDK's and Prism's own log lines; failures reach the result
		slog.SetDefault(slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelError + 4})))
	}
	if len(files) != 1 {
		fmt.Fprintf(stderr, "%s: want one model file, got %d; \"qrc-beam solve -h\" shows the usage\n", prog, len(files))
		return solvecmd.ExitUsage
	}
	file := files[0]
	opts, err := flags.Options()
	if err == nil && *finish != "rounds" {
		err = fmt.Errorf("--finish must be rounds (the only schedule qrc-beam runs: rounds anchored at full passes), not %q", *finish)
	}
	if r := fs.Lookup("runner"); err == nil && r != nil && r.Value.String() != "" && !slices.Contains(runners, r.Value.String()) {
		err = fmt.Errorf("--runner must be prism, direct, dataflow, flink, spark or universal, not %q", r.Value.String())
	}
	if err == nil {
		err = flags.CheckProfile(*cpuprofile)
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", prog, err)
		return solvecmd.ExitUsage
	}
	// the profile is kept in memory; its file is written at the end
	prof, err := solvecmd.StartCPUProfile(*cpuprofile)
	if err != nil {
		fmt.Fprintf(stderr, "%s: --cpuprofile: %v\n", prog, err)
		return solvecmd.ExitUsage
	}
	defer func() { code = prof.End(stderr, prog, code) }()
	ctx, release := solvecmd.NotifyStop("qrc-beam")
	defer release()
	job, err := distrib.NewJob(file, *dataPath, sets)
	if err != nil {
		prof.Discard()
		fmt.Fprintf(stderr, "qrc-beam: %v\n", err)
		return solvecmd.ExitInvalid
	}
	quiet := *flags.Quiet
	runner := &beamrun.Runner{Job: job, Temp: *outDir}
	passes := 0
	runner.Log = func(what string, shards int, d time.Duration) {
		if what == "pass" {
			passes++
			what = fmt.Sprintf("full pass %d", passes)
		}
		if !quiet {
			fmt.Fprintf(stderr, "qrc-beam: engine: %s over %d shards: %.2f s\n", what, shards, d.Seconds())
		}
	}
	sample, err := runner.Prepare(ctx, *flags.Sample, *flags.Seed)
	if err != nil {
		prof.Discard()
		fmt.Fprintf(stderr, "qrc-beam: %v\n", err)
		return solvecmd.ExitInvalid
	}
	if !quiet {
		fmt.Fprintf(stderr, "qrc-beam: %d rows in %d shards; a sample of %d rows in memory\n", runner.Rows(), len(job.Shards), sample.N())
	}
	loadOpts := []qrc.Option{qrc.WithData(job.Data, sample)}
	for _, a := range sets {
		loadOpts = append(loadOpts, qrc.WithParamExpr(a[0], a[1]))
	}
	model, err := qrc.Load(file, loadOpts...)
	if err != nil {
		prof.Discard()
		fmt.Fprintf(stderr, "qrc-beam: %s\n", solvecmd.ToFlags(err.Error()))
		return solvecmd.ExitInvalid
	}
	if err := distrib.Check(model.Checked()); err != nil {
		prof.Discard()
		fmt.Fprintf(stderr, "qrc-beam: %v\n", err)
		return solvecmd.ExitInvalid
	}
	if err := prof.Check(); err != nil {
		fmt.Fprintf(stderr, "%s: --cpuprofile: %v\n", prog, err)
		return solvecmd.ExitUsage
	}
	opts.Oracle = solve.Dynamic
	opts.FullRows = runner.Rows()
	opts.FullPass = func(x []float64) ([]float64, [][]float64, error) {
		return runner.Pass(ctx, x)
	}
	r := &solvecmd.Run{Name: "solve", Model: model, X0: model.Start(), Flags: flags, Options: opts,
		Ctx: ctx, Stdout: stdout, Stderr: stderr, Progress: true}
	_, code = r.Solve()
	return code
}
