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
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
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

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// reorder puts the model file (the argument ending in .qrc) last, so that
// flags may follow it as with qrc solve, and drops the "solve" verb.
func reorder(args []string) ([]string, string) {
	if len(args) > 0 && args[0] == "solve" {
		args = args[1:]
	}
	var out []string
	model := ""
	for _, a := range args {
		if model == "" && strings.HasSuffix(a, ".qrc") && !strings.HasPrefix(a, "-") {
			model = a
			continue
		}
		out = append(out, a)
	}
	return out, model
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.CommandLine // Beam's flags are registered there
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usage) }
	flags := solvecmd.RegisterFlags(fs)
	var sets assigns
	fs.Var(&sets, "set", "")
	dataPath := fs.String("data", "", "")
	outDir := fs.String("sample-dir", "", "")
	beamLog := fs.Bool("beam-log", false, "")
	rest, file := reorder(args)
	if err := fs.Parse(rest); err != nil {
		return solvecmd.ExitUsage
	}
	beam.Init() // a worker started by a runner runs its harness here and exits
	if !*beamLog {
		// the SDK's and Prism's own log lines; failures reach the result
		slog.SetDefault(slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelError + 4})))
	}
	if file == "" || fs.NArg() > 0 {
		fmt.Fprint(stderr, usage)
		return solvecmd.ExitUsage
	}
	opts, err := flags.Options()
	if err != nil {
		fmt.Fprintf(stderr, "qrc-beam: %v\n", err)
		return solvecmd.ExitUsage
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	job, err := distrib.NewJob(file, *dataPath, sets)
	if err != nil {
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
		fmt.Fprintf(stderr, "qrc-beam: %s\n", solvecmd.ToFlags(err.Error()))
		return solvecmd.ExitInvalid
	}
	if err := distrib.Check(model.Checked()); err != nil {
		fmt.Fprintf(stderr, "qrc-beam: %v\n", err)
		return solvecmd.ExitInvalid
	}
	opts.Oracle = solve.Dynamic
	opts.FullRows = runner.Rows()
	opts.FullPass = func(x []float64) ([]float64, [][]float64, error) {
		return runner.Pass(ctx, x)
	}
	r := &solvecmd.Run{Name: "solve", Model: model, X0: model.Start(), Flags: flags, Options: opts,
		Ctx: ctx, Stdout: stdout, Stderr: stderr, Progress: true}
	_, code := r.Solve()
	return code
}
