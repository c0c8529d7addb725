// Package pqtest writes small Parquet files for tests, so that no binary
// data file is committed: the tests of package data, the checker and the
// qrc command generate what they read. It uses Apache Arrow's Parquet writer
// (github.com/apache/arrow-go), snappy compression and the writer's default
// dictionary encoding.
package pqtest

import (
	"bytes"
	"encoding/csv"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/schema"
	"github.com/stretchr/testify/require"
)

// Col is a column to write: its name, its type ("double", "float",
// "int64", "int32", "uint8", "uint64", "bool", "string" or "date") and its cells as
// text. An empty cell (for a string column, one that is exactly "") is a
// null; the columns are optional, so that they can hold nulls.
type Col struct {
	Name, Type string
	Cells      []string
}

// FromCSV reads CSV text into columns: those whose cells are all numbers or
// empty are "double", the others "string"; types overrides by name.
func FromCSV(t testing.TB, text string, types map[string]string) []Col {
	t.Helper()
	r := csv.NewReader(strings.NewReader(text))
	r.TrimLeadingSpace = true
	recs, err := r.ReadAll()
	require.NoError(t, err)
	cols := make([]Col, len(recs[0]))
	for j, name := range recs[0] {
		cols[j] = Col{Name: name, Type: "double"}
		for _, rec := range recs[1:] {
			cell := strings.TrimSpace(rec[j])
			if _, err := strconv.ParseFloat(cell, 64); err != nil && cell != "" {
				cols[j].Type = "string"
			}
			cols[j].Cells = append(cols[j].Cells, rec[j])
		}
		if typ, ok := types[name]; ok {
			cols[j].Type = typ
		}
	}
	return cols
}

// Bytes returns the columns as a Parquet file with row groups of at most
// groupRows rows.
func Bytes(t testing.TB, cols []Col, groupRows int) []byte {
	t.Helper()
	var fields schema.FieldList
	for _, c := range cols {
		var (
			n   *schema.PrimitiveNode
			err error
		)
		opt := parquet.Repetitions.Optional
		switch c.Type {
		case "double":
			n, err = schema.NewPrimitiveNode(c.Name, opt, parquet.Types.Double, -1, -1)
		case "float":
			n, err = schema.NewPrimitiveNode(c.Name, opt, parquet.Types.Float, -1, -1)
		case "int64":
			n, err = schema.NewPrimitiveNode(c.Name, opt, parquet.Types.Int64, -1, -1)
		case "int32":
			n, err = schema.NewPrimitiveNode(c.Name, opt, parquet.Types.Int32, -1, -1)
		case "uint8":
			n, err = schema.NewPrimitiveNodeLogical(c.Name, opt, schema.NewIntLogicalType(8, false), parquet.Types.Int32, -1, -1)
		case "uint64":
			n, err = schema.NewPrimitiveNodeLogical(c.Name, opt, schema.NewIntLogicalType(64, false), parquet.Types.Int64, -1, -1)
		case "bool":
			n, err = schema.NewPrimitiveNode(c.Name, opt, parquet.Types.Boolean, -1, -1)
		case "string":
			n, err = schema.NewPrimitiveNodeLogical(c.Name, opt, schema.StringLogicalType{}, parquet.Types.ByteArray, -1, -1)
		case "date":
			n, err = schema.NewPrimitiveNodeLogical(c.Name, opt, schema.DateLogicalType{}, parquet.Types.Int32, -1, -1)
		default:
			t.Fatalf("unknown type %q", c.Type)
		}
		require.NoError(t, err)
		fields = append(fields, n)
	}
	root, err := schema.NewGroupNode("schema", parquet.Repetitions.Required, fields, -1)
	require.NoError(t, err)
	var buf bytes.Buffer
	props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Snappy))
	w := file.NewParquetWriter(&buf, root, file.WithWriterProps(props))
	rows := len(cols[0].Cells)
	for lo := 0; lo < rows; lo += groupRows {
		hi := min(lo+groupRows, rows)
		rg := w.AppendRowGroup()
		for _, c := range cols {
			cw, err := rg.NextColumn()
			require.NoError(t, err)
			defs := make([]int16, 0, hi-lo)
			var (
				f64 []float64
				f32 []float32
				i64 []int64
				i32 []int32
				bs  []bool
				ba  []parquet.ByteArray
			)
			for _, cell := range c.Cells[lo:hi] {
				if cell == "" || c.Type != "string" && strings.TrimSpace(cell) == "" {
					defs = append(defs, 0)
					continue
				}
				defs = append(defs, 1)
				x, _ := strconv.ParseFloat(strings.TrimSpace(cell), 64)
				switch c.Type {
				case "double":
					f64 = append(f64, x)
				case "float":
					f32 = append(f32, float32(x))
				case "int64":
					i64 = append(i64, int64(x))
				case "uint64":
					u, err := strconv.ParseUint(strings.TrimSpace(cell), 10, 64)
					require.NoError(t, err)
					i64 = append(i64, int64(u))
				case "int32", "uint8", "date":
					i32 = append(i32, int32(x))
				case "bool":
					bs = append(bs, x != 0)
				case "string":
					ba = append(ba, parquet.ByteArray(cell))
				}
			}
			switch cw := cw.(type) {
			case *file.Float64ColumnChunkWriter:
				_, err = cw.WriteBatch(f64, defs, nil)
			case *file.Float32ColumnChunkWriter:
				_, err = cw.WriteBatch(f32, defs, nil)
			case *file.Int64ColumnChunkWriter:
				_, err = cw.WriteBatch(i64, defs, nil)
			case *file.Int32ColumnChunkWriter:
				_, err = cw.WriteBatch(i32, defs, nil)
			case *file.BooleanColumnChunkWriter:
				_, err = cw.WriteBatch(bs, defs, nil)
			case *file.ByteArrayColumnChunkWriter:
				_, err = cw.WriteBatch(ba, defs, nil)
			}
			require.NoError(t, err)
			require.NoError(t, cw.Close())
		}
		require.NoError(t, rg.Close())
	}
	require.NoError(t, w.Close())
	return buf.Bytes()
}

// Write writes the columns as a Parquet file at path (see Bytes).
func Write(t testing.TB, path string, cols []Col, groupRows int) {
	t.Helper()
	require.NoError(t, os.WriteFile(path, Bytes(t, cols, groupRows), 0o644))
}

// WriteCSV writes the Parquet form of the CSV file at csvPath to path (see
// FromCSV).
func WriteCSV(t testing.TB, path, csvPath string, types map[string]string, groupRows int) {
	t.Helper()
	text, err := os.ReadFile(csvPath)
	require.NoError(t, err)
	Write(t, path, FromCSV(t, string(text), types), groupRows)
}

// WriteFloats writes float64 columns (required, no nulls) named names as a
// Parquet file at path with row groups of at most groupRows rows, for
// benchmarks of large files.
func WriteFloats(tb testing.TB, path string, names []string, cols [][]float64, groupRows int) {
	tb.Helper()
	var fields schema.FieldList
	for _, name := range names {
		n, err := schema.NewPrimitiveNode(name, parquet.Repetitions.Required, parquet.Types.Double, -1, -1)
		require.NoError(tb, err)
		fields = append(fields, n)
	}
	root, err := schema.NewGroupNode("schema", parquet.Repetitions.Required, fields, -1)
	require.NoError(tb, err)
	f, err := os.Create(path)
	require.NoError(tb, err)
	props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Snappy))
	w := file.NewParquetWriter(f, root, file.WithWriterProps(props))
	rows := len(cols[0])
	for lo := 0; lo < rows; lo += groupRows {
		hi := min(lo+groupRows, rows)
		rg := w.AppendRowGroup()
		for _, c := range cols {
			cw, err := rg.NextColumn()
			require.NoError(tb, err)
			_, err = cw.(*file.Float64ColumnChunkWriter).WriteBatch(c[lo:hi], nil, nil)
			require.NoError(tb, err)
			require.NoError(tb, cw.Close())
		}
		require.NoError(tb, rg.Close())
	}
	require.NoError(tb, w.Close()) // closes f too
}
