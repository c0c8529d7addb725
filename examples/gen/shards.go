package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/schema"
)

// shardGroupRows is the row-group size of the Parquet shards.
const shardGroupRows = 1 << 16

// largeRows generates the rows of the set sp describes, in order, the
// same rows writeLarge writes: for each, its label (1..Classes) and its
// features, each a multiple of 1e-4 in [0, 1] (q/1e4, which is what
// reading writeLarge's four decimals gives).
type largeRows struct {
	sp    largeSpec
	r     *rand.Rand
	means [][]float64
}

func newLargeRows(sp largeSpec) *largeRows {
	g := &largeRows{sp: sp, r: rand.New(rand.NewPCG(sp.Seed, 0x1a46e))}
	g.means = make([][]float64, sp.Classes)
	for k := range g.means {
		g.means[k] = make([]float64, sp.Features)
		for j := range g.means[k] {
			g.means[k][j] = 0.2 + 0.6*g.r.Float64()
		}
	}
	return g
}

// next fills x (Features values) and returns the label.
func (g *largeRows) next(x []float64) int {
	k := g.r.IntN(g.sp.Classes)
	for j, mu := range g.means[k] {
		v := min(max(mu+g.sp.Noise*g.r.NormFloat64(), 0), 1)
		x[j] = float64(int(math.Round(v*1e4))) / 1e4
	}
	return k + 1
}

// runShards writes the large set sp as shards files of the format
// ("parquet", "csv" or "libsvm") into dir, named train-00000.EXT, ...:
// shard k holds rows [k*Rows/shards, (k+1)*Rows/shards) of the one
// stream of rows, so that the shards in name order are the rows of the
// single file --rows writes. Parquet shards have double columns f1..fD
// and y (the label), snappy-compressed, in row groups of 65536 rows; CSV
// shards a header f1,...,fD,y.
func runShards(sp largeSpec, shards int, format, dir string) error {
	if err := sp.check(); err != nil {
		return err
	}
	if shards < 1 || shards > sp.Rows {
		return errors.New("--shards must be between 1 and --rows")
	}
	ext := map[string]string{"parquet": "parquet", "csv": "csv", "libsvm": "svm"}[format]
	if ext == "" {
		return fmt.Errorf("--format must be parquet, csv or libsvm, not %q", format)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	g := newLargeRows(sp)
	for k := range shards {
		lo, hi := k*sp.Rows/shards, (k+1)*sp.Rows/shards
		path := filepath.Join(dir, fmt.Sprintf("train-%05d.%s", k, ext))
		var err error
		if format == "parquet" {
			err = writeParquetShard(path, g, hi-lo)
		} else {
			err = writeFile(path, func(w io.Writer) error { return writeTextShard(w, g, hi-lo, format) })
		}
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		fmt.Println("wrote", path)
	}
	return nil
}

// writeTextShard writes n rows of g as CSV or LIBSVM.
func writeTextShard(w io.Writer, g *largeRows, n int, format string) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	d := g.sp.Features
	if format == "csv" {
		for j := range d {
			fmt.Fprintf(bw, "f%d,", j+1)
		}
		bw.WriteString("y\n")
	}
	x := make([]float64, d)
	line := make([]byte, 0, 16+12*d)
	for range n {
		y := g.next(x)
		line = line[:0]
		if format == "libsvm" {
			line = strconv.AppendInt(line, int64(y), 10)
			for j, v := range x {
				if q := int(math.Round(v * 1e4)); q != 0 {
					line = append(line, ' ')
					line = strconv.AppendInt(line, int64(j+1), 10)
					line = append(line, ':')
					line = appendFixed4(line, q)
				}
			}
		} else {
			for _, v := range x {
				line = strconv.AppendFloat(line, v, 'g', -1, 64)
				line = append(line, ',')
			}
			line = strconv.AppendInt(line, int64(y), 10)
		}
		line = append(line, '\n')
		if _, err := bw.Write(line); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// writeParquetShard writes n rows of g as a Parquet file.
func writeParquetShard(path string, g *largeRows, n int) error {
	d := g.sp.Features
	var fields schema.FieldList
	for j := range d + 1 {
		name := "y"
		if j < d {
			name = "f" + strconv.Itoa(j+1)
		}
		node, err := schema.NewPrimitiveNode(name, parquet.Repetitions.Required, parquet.Types.Double, -1, -1)
		if err != nil {
			return err
		}
		fields = append(fields, node)
	}
	root, err := schema.NewGroupNode("schema", parquet.Repetitions.Required, fields, -1)
	if err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Snappy))
	w := file.NewParquetWriter(f, root, file.WithWriterProps(props))
	cols := make([][]float64, d+1)
	x := make([]float64, d)
	for left := n; left > 0; {
		m := min(left, shardGroupRows)
		for j := range cols {
			cols[j] = cols[j][:0]
		}
		for range m {
			y := g.next(x)
			for j, v := range x {
				cols[j] = append(cols[j], v)
			}
			cols[d] = append(cols[d], float64(y))
		}
		rg := w.AppendRowGroup()
		for _, c := range cols {
			cw, err := rg.NextColumn()
			if err != nil {
				w.Close()
				return err
			}
			if _, err := cw.(*file.Float64ColumnChunkWriter).WriteBatch(c, nil, nil); err != nil {
				w.Close()
				return err
			}
			if err := cw.Close(); err != nil {
				w.Close()
				return err
			}
		}
		if err := rg.Close(); err != nil {
			w.Close()
			return err
		}
		left -= m
	}
	return w.Close() // closes f too
}
