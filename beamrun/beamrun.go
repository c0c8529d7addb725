// Package beamrun runs the full passes of a distributed solve as Apache
// Beam pipelines (github.com/apache/beam/sdks/v2, the Go SDK): on the
// Prism runner in process, or on any runner Beam names (dataflow, flink,
// spark, universal with --endpoint), chosen by Beam's own --runner flag.
//
// Every pipeline starts from the list of shards (package distrib's Job)
// and runs one DoFn per shard that checks the model on that shard's rows
// (qrc's own loaders read the shard with the model's options) and emits
// what the coordinator needs, as JSON text written by textio to a file
// the coordinator reads back:
//
//   - Prepare: every shard's rows and the rows of each data mean (filters
//     counted per shard), added up; then a uniform sample of about
//     SampleRows rows in all, seeded (distrib.SampleRows), concatenated in
//     shard order;
//   - Pass: at a point x, every shard's partial sums (distrib.NewShard),
//     added by a combine; the coordinator subtracts the base.
//
// What workers receive is the model's source, the shard paths, the row
// counts and the point: never the data.
package beamrun

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/textio"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"

	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/data"
	"github.com/qrc-lang/qrc/distrib"
)

func init() {
	register.DoFn3x1[context.Context, string, func(string), error](&countFn{})
	register.DoFn3x1[context.Context, string, func(string), error](&sampleFn{})
	register.DoFn3x1[context.Context, string, func(string), error](&passFn{})
	register.Function2x2(addPartials)
	register.Emitter1[string]()
}

// element is a shard as a pipeline element: "index\tpath".
func elements(j *distrib.Job) []string {
	out := make([]string, len(j.Shards))
	for k, p := range j.Shards {
		out[k] = strconv.Itoa(k) + "\t" + p
	}
	return out
}

func shardIndex(e string) (int, error) {
	i, _, ok := strings.Cut(e, "\t")
	if !ok {
		return 0, fmt.Errorf("beamrun: bad shard element %q", e)
	}
	return strconv.Atoi(i)
}

// perShard loads the shard the element e names, computes f of it and
// emits the result as JSON; f's errors are prefixed with the shard's file.
func perShard(job *distrib.Job, e string, emit func(string), f func(k int, m *check.Model) (any, error)) error {
	k, err := shardIndex(e)
	if err != nil {
		return err
	}
	m, err := job.Load(k)
	if err != nil {
		return err
	}
	v, err := f(k, m)
	if err != nil {
		return fmt.Errorf("shard %s: %w", job.Shards[k], err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	emit(string(b))
	return nil
}

// countFn emits a shard's rows and the rows of each of its data terms.
type countFn struct {
	Job *distrib.Job
}

type countOut struct {
	Shard  int
	Rows   int
	D      int // the shard's features
	Counts distrib.Counts
}

func (f *countFn) ProcessElement(ctx context.Context, e string, emit func(string)) error {
	return perShard(f.Job, e, emit, func(k int, m *check.Model) (any, error) {
		c, err := distrib.CountRows(m)
		if err != nil {
			return nil, err
		}
		set := f.Job.SetOf(m)
		return countOut{Shard: k, Rows: set.N(), D: set.D(), Counts: c}, nil
	})
}

// sampleFn emits a shard's rows kept by the seeded uniform sample; First
// holds every shard's first row's position in the whole set, and then
// the whole set's rows.
type sampleFn struct {
	Job   *distrib.Job
	Seed  uint64
	Frac  float64
	First []int
}

type sampleOut struct {
	Shard int
	Rows  *distrib.Rows
}

func (f *sampleFn) ProcessElement(ctx context.Context, e string, emit func(string)) error {
	return perShard(f.Job, e, emit, func(k int, m *check.Model) (any, error) {
		if k+1 >= len(f.First) {
			return nil, fmt.Errorf("no shard %d", k)
		}
		set := f.Job.SetOf(m)
		if f.First[k]+set.N() != f.First[k+1] {
			return nil, fmt.Errorf("%d rows, not the %d counted (did the shard change?)", set.N(), f.First[k+1]-f.First[k])
		}
		r, err := distrib.SampleRows(set, f.Seed, f.First[k], f.Frac)
		if err != nil {
			return nil, err
		}
		return sampleOut{Shard: k, Rows: r}, nil
	})
}

// passFn emits a shard's partial sums at X.
type passFn struct {
	Job    *distrib.Job
	Totals distrib.Counts
	X      []float64
}

func (f *passFn) ProcessElement(ctx context.Context, e string, emit func(string)) error {
	return perShard(f.Job, e, emit, func(k int, m *check.Model) (any, error) {
		ev, err := distrib.NewShard(m, f.Totals)
		if err != nil {
			return nil, err
		}
		return ev.At(f.X)
	})
}

// addPartials is the pass's combine: two partials (JSON) added.
func addPartials(a, b string) (string, error) {
	var pa, pb distrib.Partial
	if err := json.Unmarshal([]byte(a), &pa); err != nil {
		return "", err
	}
	if err := json.Unmarshal([]byte(b), &pb); err != nil {
		return "", err
	}
	pa.Add(pb)
	out, err := json.Marshal(pa)
	return string(out), err
}

// Runner runs a Job's pipelines on the runner Beam's --runner flag names.
type Runner struct {
	Job *distrib.Job
	// Temp is where pipelines write their output for the coordinator to
	// read (a directory the runner's workers can write and the coordinator
	// read: local for prism, a bucket for dataflow); "" for a fresh
	// temporary directory.
	Temp string
	// Log, when not nil, is told of each pipeline run: what, how many
	// shards, how long.
	Log func(what string, shards int, d time.Duration)

	totals distrib.Counts
	rows   int
	sample *data.Set
	base   *distrib.Evaluator
	jobs   int
	Passes int // full passes run
}

// run builds a pipeline with build, runs it and returns the lines it wrote.
func (r *Runner) run(ctx context.Context, what string, build func(s beam.Scope, shards beam.PCollection) beam.PCollection) ([]string, error) {
	if r.Temp == "" {
		dir, err := os.MkdirTemp("", "qrc-beam-")
		if err != nil {
			return nil, err
		}
		r.Temp = dir
	}
	r.jobs++
	out := strings.TrimSuffix(r.Temp, "/") + "/" + fmt.Sprintf("%s-%d.jsonl", what, r.jobs)
	p, s := beam.NewPipelineWithRoot()
	shards := beam.CreateList(s, elements(r.Job))
	textio.Write(s, out, build(s, shards))
	began := time.Now()
	if err := beamx.Run(ctx, p); err != nil {
		return nil, fmt.Errorf("the %s pipeline failed: %s", what, shardError(err))
	}
	if r.Log != nil {
		r.Log(what, len(r.Job.Shards), time.Since(began))
	}
	b, err := readOutput(ctx, out)
	if err != nil {
		return nil, fmt.Errorf("the %s pipeline's output: %w", what, err)
	}
	var lines []string
	for l := range strings.SplitSeq(strings.TrimSpace(string(b)), "\n") {
		if l != "" {
			lines = append(lines, l)
		}
	}
	return lines, nil
}

// Prepare counts the rows of every shard and of every data term (two
// pipelines: the counts, then the sample, which needs the total), and
// returns a uniform sample of about sampleRows rows (all rows when they
// are fewer), seeded by seed, as one set in shard order.
func (r *Runner) Prepare(ctx context.Context, sampleRows int, seed uint64) (*data.Set, error) {
	lines, err := r.run(ctx, "count", func(s beam.Scope, shards beam.PCollection) beam.PCollection {
		return beam.ParDo(s, &countFn{Job: r.Job}, shards)
	})
	if err != nil {
		return nil, err
	}
	totals, rows := distrib.Counts{}, 0
	var first []int // every shard's first row in the whole set
	outs := make([]countOut, 0, len(lines))
	for _, l := range lines {
		var c countOut
		if err := json.Unmarshal([]byte(l), &c); err != nil {
			return nil, err
		}
		outs = append(outs, c)
	}
	slices.SortFunc(outs, func(a, b countOut) int { return a.Shard - b.Shard })
	for _, c := range outs {
		if c.D != outs[0].D {
			return nil, fmt.Errorf("shard %s has %d features and shard %s %d: the shards of a distributed solve must have the same columns (for LIBSVM, give features = N)",
				r.Job.Shards[c.Shard], c.D, r.Job.Shards[outs[0].Shard], outs[0].D)
		}
		if err := totals.Add(c.Counts); err != nil {
			return nil, fmt.Errorf("shard %s: %w", r.Job.Shards[c.Shard], err)
		}
		first = append(first, rows)
		rows += c.Rows
	}
	if len(outs) != len(r.Job.Shards) {
		return nil, fmt.Errorf("the count pipeline returned %d shards of %d", len(outs), len(r.Job.Shards))
	}
	first = append(first, rows)
	r.totals, r.rows = totals, rows
	frac := distrib.SampleFraction(sampleRows, rows)
	lines, err = r.run(ctx, "sample", func(s beam.Scope, shards beam.PCollection) beam.PCollection {
		return beam.ParDo(s, &sampleFn{Job: r.Job, Seed: seed, Frac: frac, First: first}, shards)
	})
	if err != nil {
		return nil, err
	}
	samples := make([]sampleOut, 0, len(lines))
	for _, l := range lines {
		var so sampleOut
		if err := json.Unmarshal([]byte(l), &so); err != nil {
			return nil, err
		}
		samples = append(samples, so)
	}
	slices.SortFunc(samples, func(a, b sampleOut) int { return a.Shard - b.Shard })
	sets := make([]*data.Set, len(samples))
	for i, so := range samples {
		sets[i] = so.Rows.Set(r.Job.Shards[so.Shard])
	}
	r.sample, err = data.Concat("sample of "+strconv.Itoa(rows)+" rows", sets)
	return r.sample, err
}

// Rows is the number of rows of all shards (after Prepare).
func (r *Runner) Rows() int { return r.rows }

// Pass evaluates every function and its gradient at x over all shards:
// the pipeline's summed partials less (shards-1) times the base, which
// the coordinator computes on the sample's model with every data term zero.
func (r *Runner) Pass(ctx context.Context, x []float64) ([]float64, [][]float64, error) {
	if r.totals == nil {
		return nil, nil, fmt.Errorf("beamrun: Pass before Prepare")
	}
	if r.base == nil {
		m, err := r.Job.LoadWith(r.sample)
		if err != nil {
			return nil, nil, err
		}
		if r.base, err = distrib.NewBase(m); err != nil {
			return nil, nil, err
		}
	}
	lines, err := r.run(ctx, "pass", func(s beam.Scope, shards beam.PCollection) beam.PCollection {
		parts := beam.ParDo(s, &passFn{Job: r.Job, Totals: r.totals, X: x}, shards)
		return beam.Combine(s, addPartials, parts)
	})
	if err != nil {
		return nil, nil, err
	}
	if len(lines) != 1 {
		return nil, nil, fmt.Errorf("the pass pipeline returned %d sums, not 1", len(lines))
	}
	var sum distrib.Partial
	if err := json.Unmarshal([]byte(lines[0]), &sum); err != nil {
		return nil, nil, err
	}
	if sum.Shards != len(r.Job.Shards) || sum.Rows != r.rows {
		return nil, nil, fmt.Errorf("the pass added %d shards of %d rows; the data has %d shards of %d rows (did a shard change?)", sum.Shards, sum.Rows, len(r.Job.Shards), r.rows)
	}
	b, err := r.base.At(x)
	if err != nil {
		return nil, nil, err
	}
	r.Passes++
	vals, grads := distrib.Combine(sum, b)
	return vals, grads, nil
}

// shardError returns the error a DoFn gave about a shard ("shard PATH:
// ..."), which Beam's error wraps in the failed bundle's plan, or the
// whole error when it holds none.
func shardError(err error) string {
	msg := err.Error()
	if i := strings.LastIndex(msg, "\nshard "); i >= 0 {
		msg, _, _ = strings.Cut(msg[i+1:], "\n")
	}
	return msg
}

// readOutput reads and removes a pipeline's output file through Beam's
// filesystems (a local path, or gs:// on Dataflow).
func readOutput(ctx context.Context, path string) ([]byte, error) {
	fs, err := filesystem.New(ctx, path)
	if err != nil {
		return nil, err
	}
	defer fs.Close()
	rc, err := fs.OpenRead(ctx, path)
	if err != nil {
		return nil, err
	}
	b, err := io.ReadAll(rc)
	rc.Close()
	if err != nil {
		return nil, err
	}
	if rm, ok := fs.(filesystem.Remover); ok {
		rm.Remove(ctx, path)
	}
	return b, nil
}
