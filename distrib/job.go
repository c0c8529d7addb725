package distrib

import (
	"fmt"
	"path/filepath"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/qrc-lang/qrc/ast"
	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/data"
	"github.com/qrc-lang/qrc/fileio"
	"github.com/qrc-lang/qrc/lang"
	"github.com/qrc-lang/qrc/limits"
	"github.com/qrc-lang/qrc/modelfile"
)

// Job is what a worker needs to evaluate a model over one shard: the
// model's source (never its data), the name of its sharded data set, the
// parameter overrides, and the shards. It is sent to workers as JSON.
type Job struct {
	File   string      // the model file's absolute path: positions in messages, and the directory its other paths are relative to
	Source string      // the model's text
	Data   string      // the name of the sharded data set
	Set    [][2]string // parameter overrides (--set NAME=EXPR)
	Shards []string    // the shard files, in order
}

// NewJob reads the model at file and finds its data set: the model must
// declare exactly one, whose path (or dataPath, when not "") names a
// sharded set (a directory or glob) or one file (one shard).
func NewJob(file, dataPath string, set [][2]string) (*Job, error) {
	abs, err := filepath.Abs(file)
	if err != nil {
		return nil, err
	}
	src, err := fileio.ReadFile(abs, limits.MaxSourceBytes)
	if err != nil {
		return nil, fmt.Errorf("%s: cannot read model: %w", file, err)
	}
	f, diags := lang.Parse(abs, lang.StripBOM(src))
	if err := diags.Err(); err != nil {
		return nil, err
	}
	var decls []*ast.DataDecl
	for _, d := range f.Decls {
		if dd, ok := d.(*ast.DataDecl); ok {
			decls = append(decls, dd)
		}
	}
	if len(decls) != 1 {
		return nil, fmt.Errorf("%s: a distributed solve needs a model with exactly one data set, not %d", file, len(decls))
	}
	d := decls[0]
	path := dataPath
	if path == "" {
		call, ok := d.Source.(*ast.Call)
		if !ok || len(call.Args) == 0 || call.Args[0].Name != nil {
			return nil, fmt.Errorf("%s: data set %s has no file name", file, d.Name.Name)
		}
		s, ok := call.Args[0].Value.(*ast.String)
		if !ok {
			return nil, fmt.Errorf("%s: data set %s: the file name must be a string", file, d.Name.Name)
		}
		path = s.Value
		if !filepath.IsAbs(path) {
			path = filepath.Join(filepath.Dir(abs), path)
		}
	}
	shards, sharded, err := data.Shards(path)
	if err != nil {
		return nil, err
	}
	if !sharded {
		shards = []string{path}
	}
	return &Job{File: abs, Source: string(src), Data: d.Name.Name, Set: set, Shards: shards}, nil
}

// options are the checker's options for the model on shard (or, with
// shard "", for the model with its data set given in memory as set).
func (j *Job) options(shard string, set *data.Set) check.Options {
	o := check.Options{Dir: filepath.Dir(j.File)}
	for _, a := range j.Set {
		o.Set = append(o.Set, check.Assign{Name: a[0], Value: a[1]})
	}
	if set != nil {
		o.Sets = map[string]*data.Set{j.Data: set}
	} else {
		o.Data = []check.Assign{{Name: j.Data, Value: shard}}
	}
	return o
}

// Load checks the model on shard k's rows.
func (j *Job) Load(k int) (*check.Model, error) {
	if k < 0 || k >= len(j.Shards) {
		return nil, fmt.Errorf("no shard %d", k)
	}
	m, _, diags := modelfile.LoadSource(j.File, []byte(j.Source), j.options(j.Shards[k], nil))
	if err := diags.Err(); err != nil {
		return nil, fmt.Errorf("shard %s: %w", j.Shards[k], err)
	}
	return m, nil
}

// LoadWith checks the model with its data set replaced by set (the
// coordinator's sample).
func (j *Job) LoadWith(set *data.Set) (*check.Model, error) {
	m, _, diags := modelfile.LoadSource(j.File, []byte(j.Source), j.options("", set))
	if err := diags.Err(); err != nil {
		return nil, err
	}
	return m, nil
}

// Set returns the data set of m that the job shards.
func (j *Job) SetOf(m *check.Model) *data.Set {
	for _, d := range m.Data {
		if d.Name == j.Data {
			return d.Set
		}
	}
	return nil
}

// Rows is a part of a data set's rows, as workers send a sample: dense
// features (a sparse set's are made dense), labels and the named columns,
// with the text columns' levels.
type Rows struct {
	Format    string
	Features  []string
	LabelName string
	D         int
	X         []float64 // row-major, len = rows * D
	Y         []float64
	Columns   map[string][]float64
	Text      map[string][]string
}

// SampleRows returns the rows of s that the uniform, seeded sample of
// fraction frac keeps, s being the rows first, first+1, ... of a data set
// (one shard, or the whole set with first 0): row r of the whole set, in
// shard order, is kept when Uniform(seed, r) falls below frac, so that the
// sample is the same whatever runs it and however the rows are split into
// shards (the in-memory solve of qrc solve --finish rounds draws it from
// the whole set), and its rows are a uniform sample without replacement of
// expected size frac times all rows.
func SampleRows(s *data.Set, seed uint64, first int, frac float64) (*Rows, error) {
	var keep []int
	for i := range s.N() {
		if Uniform(seed, uint64(first+i)) < frac {
			keep = append(keep, i)
		}
	}
	x, err := s.Dense()
	if err != nil {
		return nil, err
	}
	d := s.D()
	r := &Rows{Format: s.Format, Features: s.Features, LabelName: s.LabelName, D: d, X: make([]float64, 0, len(keep)*d)}
	for _, i := range keep {
		if x != nil {
			r.X = append(r.X, x.RawRowView(i)...)
		}
	}
	if s.Y != nil {
		r.Y = make([]float64, len(keep))
		for k, i := range keep {
			r.Y[k] = s.Y[i]
		}
	}
	if s.Columns != nil {
		r.Columns = map[string][]float64{}
		for name, col := range s.Columns {
			if len(col) != s.N() {
				continue // not loaded (check.Options.UsedColumns): the model does not name it
			}
			c := make([]float64, len(keep))
			for k, i := range keep {
				c[k] = col[i]
			}
			r.Columns[name] = c
		}
	}
	if s.Text != nil {
		r.Text = map[string][]string{}
		for name, t := range s.Text {
			r.Text[name] = slices.Clone(t.Levels)
		}
	}
	return r, nil
}

// Set returns the rows as a data set named name.
func (r *Rows) Set(name string) *data.Set {
	n := 0
	if r.D > 0 {
		n = len(r.X) / r.D
	} else if r.Y != nil {
		n = len(r.Y)
	}
	s := &data.Set{Path: name, Format: r.Format, Features: r.Features, Y: r.Y, Columns: r.Columns, LabelName: r.LabelName}
	if n > 0 && r.D > 0 {
		s.X = mat.NewDense(n, r.D, r.X)
	} else {
		s.X = &mat.Dense{}
	}
	if r.Text != nil {
		s.Text = map[string]*data.TextColumn{}
		for k, l := range r.Text {
			s.Text[k] = &data.TextColumn{Levels: l}
		}
	}
	return s
}

// Uniform is a hash of (seed, row) uniform in [0, 1): splitmix64 steps.
func Uniform(seed, row uint64) float64 {
	z := seed
	for _, v := range [...]uint64{0, row} {
		z += 0x9e3779b97f4a7c15 ^ v*0xbf58476d1ce4e5b9
		z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
		z = (z ^ z>>27) * 0x94d049bb133111eb
		z ^= z >> 31
	}
	return float64(z>>11) / (1 << 53)
}

// Sample returns the rows of the whole data set s that SampleRows keeps
// for about rows rows in all (every row when s has no more), seeded by
// seed, as one set named name: the sample qrc-beam draws over the shards
// of s, drawn in memory.
func Sample(name string, s *data.Set, seed uint64, rows int) (*data.Set, error) {
	r, err := SampleRows(s, seed, 0, SampleFraction(rows, s.N()))
	if err != nil {
		return nil, err
	}
	return data.Concat(name, []*data.Set{r.Set(s.Path)})
}

// SampleFraction is the fraction of all rows (of total) that a sample of
// about rows rows keeps: at most 1.
func SampleFraction(rows, total int) float64 {
	if total <= 0 {
		return 1
	}
	return min(1, float64(rows)/float64(total))
}
