package data

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// A data set may be made of shards: files of the same columns whose rows,
// one file after the other, are the set's rows (Parquet or CSV files written
// by Spark, Beam or a sharded export). A loader path names such a set in
// two ways:
//
//   - a directory: its shards are the regular files directly in it whose
//     names do not start with "." or "_" (Spark's _SUCCESS, hidden .crc
//     files), and it must hold at least one;
//   - a glob (a path with *, ? or [ that is not itself a file, such as
//     "data/train-*.parquet", in the syntax of [filepath.Match]): its shards
//     are the files it matches, at least one.
//
// Shards are taken in the byte order of their paths ("train-10" comes
// before "train-2": number shards with leading zeros). Every loader option
// applies to each shard, and so does the memory limit; the concatenated set
// is held to the limit as well. A shard whose columns (names, label, count
// of LIBSVM features when given) differ from the first shard's is an error
// naming that shard.

// Shards returns the shard files path names and true when path is a
// directory or a glob (see the package's description of sharded sets), or
// nil and false when path names one file (which need not exist: the loader
// reports that). A glob that matches nothing, a malformed glob and an empty
// directory are errors.
func Shards(path string) ([]string, bool, error) {
	st, err := os.Stat(path)
	switch {
	case err == nil && st.IsDir():
		ents, err := os.ReadDir(path)
		if err != nil {
			return nil, true, ioError(path, "list", err)
		}
		var out []string
		for _, e := range ents {
			name := e.Name()
			if strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || e.IsDir() {
				continue
			}
			out = append(out, filepath.Join(path, name))
		}
		if len(out) == 0 {
			return nil, true, &Error{Path: path, Msg: "the directory holds no data file (a sharded data set reads the files directly in it whose names do not start with . or _)"}
		}
		slices.Sort(out)
		return out, true, nil
	case err == nil:
		return nil, false, nil
	case !errors.Is(err, fs.ErrNotExist) || !strings.ContainsAny(path, "*?["):
		return nil, false, nil
	}
	out, err := filepath.Glob(path)
	if err != nil {
		return nil, true, &Error{Path: path, Msg: "malformed file pattern: " + err.Error()}
	}
	if len(out) == 0 {
		return nil, true, &Error{Path: path, Msg: "no file matches this pattern", Err: fs.ErrNotExist}
	}
	slices.Sort(out)
	return out, true, nil
}

// loadShards loads every shard of a sharded set with load and returns
// their rows concatenated; name is the directory or glob, maxMemory the
// loader's MaxMemory option (0 for MemoryLimit).
func loadShards(name string, paths []string, maxMemory int64, load func(path string) (*Set, error)) (*Set, error) {
	sets := make([]*Set, 0, len(paths))
	var total int64
	b := newBudget(maxMemory)
	for _, p := range paths {
		s, err := load(p)
		if err != nil {
			return nil, err
		}
		if len(sets) > 0 {
			if err := sameColumns(sets[0], s); err != nil {
				return nil, err
			}
		}
		total += s.MatrixBytes() + 8*int64(s.N())*int64(len(s.Columns)+1)
		if msg := b.exceeded(total, fmt.Sprintf("the first %d of its %d shards", len(sets)+1, len(paths))); msg != "" {
			return nil, &Error{Path: name, Msg: msg}
		}
		sets = append(sets, s)
	}
	return Concat(name, sets)
}

// sameColumns reports an error naming shard s when its columns differ from
// those of the first shard, first.
func sameColumns(first, s *Set) error {
	diff := func(format string, args ...any) error {
		return &Error{Path: s.Path, Msg: fmt.Sprintf("this shard's columns differ from those of the first shard %s: ", first.Path) + fmt.Sprintf(format, args...)}
	}
	switch {
	case first.Format != s.Format:
		return diff("it is a %s file, the first a %s file", s.Format, first.Format)
	case (first.Y == nil) != (s.Y == nil):
		return diff("one has a label column and the other not")
	case first.LabelName != s.LabelName:
		return diff("label column %q, not %q", s.LabelName, first.LabelName)
	case first.Format != "libsvm" && !slices.Equal(first.Features, s.Features):
		return diff("feature columns %s, not %s", strings.Join(s.Features, ","), strings.Join(first.Features, ","))
	}
	for _, k := range sortedKeys(first.Columns) {
		if _, ok := s.Columns[k]; !ok {
			return diff("no numeric column %q", k)
		}
	}
	for _, k := range sortedKeys(s.Columns) {
		if _, ok := first.Columns[k]; !ok {
			return diff("an extra numeric column %q", k)
		}
	}
	for k := range first.Text {
		if s.Text[k] == nil {
			return diff("column %q is not a text column", k)
		}
	}
	for k := range s.Text {
		if first.Text[k] == nil {
			return diff("column %q is a text column in this shard only", k)
		}
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// Concat returns the rows of sets, in order, as one set named name: the
// sets must have the same columns (see the shards' rules). LIBSVM sets of
// different feature counts are widened to the largest, as one file holding
// all their lines would be read; the result is sparse when every set is,
// dense otherwise. Text columns' levels are merged in the order they first
// appear and the rows' codes renumbered, so that the result is what one file
// holding all the rows would give.
func Concat(name string, sets []*Set) (*Set, error) {
	if len(sets) == 0 {
		return nil, &Error{Path: name, Msg: "no shard"}
	}
	first := sets[0]
	for _, s := range sets[1:] {
		if err := sameColumns(first, s); err != nil {
			return nil, err
		}
	}
	out := &Set{Path: name, Format: first.Format, Features: slices.Clone(first.Features), LabelName: first.LabelName, maxMemory: first.maxMemory}
	n, d, sparse := 0, 0, true
	for _, s := range sets {
		n += s.N()
		if s.D() > d {
			d = s.D()
			out.maxIdxLine, out.maxIdxCol = s.maxIdxLine, s.maxIdxCol
		}
		sparse = sparse && s.IsSparse()
		out.Dropped += s.Dropped
	}
	if first.Format == "libsvm" && !sparse {
		out.Features = make([]string, d)
		for j := range d {
			out.Features[j] = fmt.Sprintf("f%d", j+1)
		}
	}
	if sparse {
		m := &CSR{Rows: n, Cols: d, RowPtr: make([]int, 1, n+1)}
		for _, s := range sets {
			base := len(m.Val)
			m.ColIdx = append(m.ColIdx, s.Sparse.ColIdx...)
			m.Val = append(m.Val, s.Sparse.Val...)
			for _, p := range s.Sparse.RowPtr[1:] {
				m.RowPtr = append(m.RowPtr, base+p)
			}
		}
		out.Sparse = m
	} else {
		x := makeFloats(n*d, n*d)
		at := 0
		for _, s := range sets {
			sx, err := s.Dense()
			if err != nil {
				return nil, err
			}
			r, c := sx.Dims()
			for i := range r {
				row := x[(at+i)*d : (at+i)*d+c]
				for j := range c {
					row[j] = sx.At(i, j)
				}
			}
			at += r
		}
		if n > 0 && d > 0 {
			out.X = mat.NewDense(n, d, x)
		}
	}
	out.n, out.d = n, d
	if first.Y != nil {
		out.Y = make([]float64, 0, n)
		for _, s := range sets {
			out.Y = append(out.Y, s.Y...)
		}
	}
	if first.Text != nil {
		out.Text = map[string]*TextColumn{}
	}
	if first.Columns != nil {
		out.Columns = map[string][]float64{}
	}
	for k := range first.Columns {
		if first.Text[k] != nil {
			continue // codes, renumbered below
		}
		col := make([]float64, 0, n)
		for _, s := range sets {
			col = append(col, s.Columns[k]...)
		}
		out.Columns[k] = col
	}
	for k := range first.Text {
		t := &TextColumn{}
		_, hasCodes := first.Columns[k]
		var col []float64
		if hasCodes {
			col = make([]float64, 0, n)
		}
		for _, s := range sets {
			remap := make([]float64, len(s.Text[k].Levels)+1)
			for i, v := range s.Text[k].Levels {
				l := t.Level(v)
				if l == 0 {
					t.Levels = append(t.Levels, v)
					l = len(t.Levels)
				}
				remap[i+1] = float64(l)
			}
			if hasCodes {
				for _, c := range s.Columns[k] {
					col = append(col, remap[int(c)])
				}
			}
		}
		out.Text[k] = t
		if hasCodes {
			out.Columns[k] = col
		}
	}
	return out, nil
}
