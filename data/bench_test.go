package data

import (
	"bufio"
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"

	"github.com/qrc-lang/qrc/internal/pqtest"
)

// benchRows is the number of rows of the generated benchmark files.
const benchRows = 1000000

// genBenchFiles writes a LIBSVM file (15 of 30 features per row, values
// with 6 decimals: about 150 MB) and a CSV file (16 columns of 6-decimal
// numbers and a label: about 150 MB) of benchRows rows into dir.
func genBenchFiles(tb testing.TB, dir string) (svm, csv string) {
	r := rand.New(rand.NewPCG(11, 13))
	svm, csv = filepath.Join(dir, "bench.svm"), filepath.Join(dir, "bench.csv")
	fs, err := os.Create(svm)
	if err != nil {
		tb.Fatal(err)
	}
	fc, err := os.Create(csv)
	if err != nil {
		tb.Fatal(err)
	}
	ws, wc := bufio.NewWriterSize(fs, 1<<20), bufio.NewWriterSize(fc, 1<<20)
	var b []byte
	b = b[:0]
	for j := range 16 {
		b = append(b, 'x')
		b = strconv.AppendInt(b, int64(j+1), 10)
		b = append(b, ',')
	}
	b = append(b, "y\n"...)
	wc.Write(b)
	for range benchRows {
		label := int64(2*r.IntN(2) - 1)
		b = strconv.AppendInt(b[:0], label, 10)
		for j := 1; j <= 30; j++ {
			if r.IntN(2) == 0 {
				continue
			}
			b = append(b, ' ')
			b = strconv.AppendInt(b, int64(j), 10)
			b = append(b, ':')
			b = strconv.AppendFloat(b, r.NormFloat64(), 'f', 6, 64)
		}
		b = append(b, '\n')
		ws.Write(b)
		b = b[:0]
		for range 16 {
			b = strconv.AppendFloat(b, r.NormFloat64(), 'f', 6, 64)
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, label, 10)
		b = append(b, '\n')
		wc.Write(b)
	}
	for _, err := range []error{ws.Flush(), wc.Flush(), fs.Close(), fc.Close()} {
		if err != nil {
			tb.Fatal(err)
		}
	}
	return svm, csv
}

func benchLoad(b *testing.B, csv bool) {
	svm, csvPath := genBenchFiles(b, b.TempDir())
	if csv {
		timeLoads(b, csvPath, func() (*Set, error) { return LoadCSV(csvPath, CSVOptions{Label: "y"}) })
		return
	}
	timeLoads(b, svm, func() (*Set, error) { return LoadLibSVM(svm, LibSVMOptions{}) })
}

// timeLoads times load, which reads the file at path and must give a set
// of benchRows rows, reporting bytes per second and CPU seconds per load.
func timeLoads(b *testing.B, path string, load func() (*Set, error)) {
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	b.ReportAllocs()
	cpu0 := cpuSeconds()
	for b.Loop() {
		s, err := load()
		if err != nil || s.N() != benchRows {
			b.Fatal(err)
		}
	}
	// CPU seconds per load (all threads): on a shared machine the wall
	// time of a run also counts other processes' work.
	cpu := (cpuSeconds() - cpu0) / float64(b.N)
	b.ReportMetric(cpu, "cpu-s/op")
	b.ReportMetric(float64(st.Size())/1e6/cpu, "MB/cpu-s")
}

// cpuSeconds returns the user and system CPU time of the process so far.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// BenchmarkLoadLibSVM1e6 loads a generated 10^6-row, ~150 MB LIBSVM file;
// run with -cpu 1,2 to see the parallel parse.
func BenchmarkLoadLibSVM1e6(b *testing.B) { benchLoad(b, false) }

// BenchmarkLoadCSV1e6 loads a generated 10^6-row, ~150 MB CSV file.
func BenchmarkLoadCSV1e6(b *testing.B) { benchLoad(b, true) }

// BenchmarkLoadParquet1e6 loads a generated Parquet file of the CSV
// benchmark's shape: 10^6 rows of 16 normal float64 features and a ±1
// label, snappy-compressed, in row groups of 2^17 rows.
func BenchmarkLoadParquet1e6(b *testing.B) {
	r := rand.New(rand.NewPCG(11, 13))
	names := make([]string, 17)
	cols := make([][]float64, 17)
	for j := range cols {
		names[j] = "x" + strconv.Itoa(j+1)
		cols[j] = make([]float64, benchRows)
	}
	names[16] = "y"
	for i := range benchRows {
		cols[16][i] = float64(2*r.IntN(2) - 1)
		for j := range 16 {
			cols[j][i] = r.NormFloat64()
		}
	}
	path := filepath.Join(b.TempDir(), "bench.parquet")
	pqtest.WriteFloats(b, path, names, cols, 1<<17)
	cols = nil
	timeLoads(b, path, func() (*Set, error) { return LoadParquet(path, ParquetOptions{Label: "y"}) })
}

// benchParse times the parser alone on one goroutine: the file's blocks,
// already in memory, parsed one after another (no file reading, no
// assembly of the set).
func benchParse(b *testing.B, csv bool) {
	svm, csvPath := genBenchFiles(b, b.TempDir())
	path := svm
	if csv {
		path = csvPath
	}
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	cut := cutLines
	if csv {
		cut = cutCSV
	}
	var chunks []chunk
	if err := splitChunks(data, chunkSize, cut, func(c chunk) bool { chunks = append(chunks, c); return true }); err != nil {
		b.Fatal(err)
	}
	lay := &csvLayout{sep: ','}
	if csv {
		if _, err := csvHeader(chunks[0], path, CSVOptions{Label: "y"}, lay); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	cpu0 := cpuSeconds()
	for b.Loop() {
		rows := 0
		for _, c := range chunks {
			if csv {
				pos := 0
				if c.seq == 0 {
					pos = bytes.IndexByte(c.buf, '\n') + 1
				}
				p := parseCSV(c, pos, path, lay)
				if p.err != nil {
					b.Fatal(p.err)
				}
				rows += p.rows
			} else {
				p := parseSVM(c, path, 0, nil)
				if p.err != nil {
					b.Fatal(p.err)
				}
				rows += len(p.labels)
			}
		}
		if rows != benchRows {
			b.Fatal(rows)
		}
	}
	cpu := (cpuSeconds() - cpu0) / float64(b.N)
	b.ReportMetric(cpu, "cpu-s/op")
	b.ReportMetric(float64(len(data))/1e6/cpu, "MB/cpu-s")
}

// BenchmarkParseLibSVM1e6 is the LIBSVM parser alone on one core.
func BenchmarkParseLibSVM1e6(b *testing.B) { benchParse(b, false) }

// BenchmarkParseCSV1e6 is the CSV parser alone on one core.
func BenchmarkParseCSV1e6(b *testing.B) { benchParse(b, true) }

// benchParseInto times the parsers of the direct path alone on one
// goroutine: the file's blocks, already in memory, parsed one after another
// straight into the set's arrays, allocated (and touched) once before the
// timing and not cleared between loads, so that neither the file reading
// nor the first touch or clearing of fresh memory is counted.
func benchParseInto(b *testing.B, csv bool) {
	svm, csvPath := genBenchFiles(b, b.TempDir())
	path := svm
	cut := cutLines
	if csv {
		path, cut = csvPath, cutCSV
	}
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	var chunks []chunk
	if err := splitChunks(data, chunkSize, cut, func(c chunk) bool { chunks = append(chunks, c); return true }); err != nil {
		b.Fatal(err)
	}
	lay := &csvLayout{sep: ','}
	if csv {
		if _, err := csvHeader(chunks[0], path, CSVOptions{Label: "y"}, lay); err != nil {
			b.Fatal(err)
		}
	}
	_, lines, _ := countLines(chunks, readBlocks(nil, chunkSize))
	const d = 30 // LIBSVM features
	ncol := len(lay.names)
	x := make([]float64, (benchRows+1)*max(d, ncol))
	cols := make([][]float64, ncol)
	for j := range cols {
		cols[j] = make([]float64, benchRows+1)
	}
	y := make([]float64, benchRows+1)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	cpu0 := cpuSeconds()
	for b.Loop() {
		rows := 0
		for k, c := range chunks {
			if csv {
				if k == 0 {
					c.buf = c.buf[bytes.IndexByte(c.buf, '\n')+1:]
				}
				dst := &csvDense{x: x[rows*16:], cols: make([][]float64, ncol), y: y[rows:]}
				for j := range cols {
					dst.cols[j] = cols[j][rows:]
				}
				p := parseCSVInto(c, path, lay, dst)
				if p.err != nil {
					b.Fatal(p.err)
				}
				rows += p.rows
			} else {
				p := parseSVM(c, path, 0, &svmDense{x: x[rows*d : (rows+lines[k])*d], y: y[rows:], d: d})
				if p.err != nil || p.retry {
					b.Fatal(p.err)
				}
				rows += p.rows
			}
		}
		if rows != benchRows {
			b.Fatal(rows)
		}
	}
	cpu := (cpuSeconds() - cpu0) / float64(b.N)
	b.ReportMetric(cpu, "cpu-s/op")
	b.ReportMetric(float64(len(data))/1e6/cpu, "MB/cpu-s")
}

// BenchmarkParseIntoLibSVM1e6 is the direct path's LIBSVM parser alone on
// one core, writing into a dense matrix.
func BenchmarkParseIntoLibSVM1e6(b *testing.B) { benchParseInto(b, false) }

// BenchmarkParseIntoCSV1e6 is the direct path's CSV parser alone on one
// core, writing into X, the columns and Y.
func BenchmarkParseIntoCSV1e6(b *testing.B) { benchParseInto(b, true) }
