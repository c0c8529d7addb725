package data

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// loaders runs a test once per loader.
var loaders = map[string]func(path string) (*Set, error){
	"libsvm": func(p string) (*Set, error) { return LoadLibSVM(p, LibSVMOptions{}) },
	"csv":    func(p string) (*Set, error) { return LoadCSV(p, CSVOptions{}) },
}

func TestNonRegularFilesAreRefused(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	cases := map[string]string{
		fifo: "cannot read a named pipe (FIFO): a data set must be a regular file",
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		cases["/dev/zero"] = "cannot read a character device: a data set must be a regular file"
	}
	for name, load := range loaders {
		for path, want := range cases {
			t.Run(name+" "+path, func(t *testing.T) {
				s, err := load(path) // a FIFO would block here if it were opened
				assert.Nil(t, s)
				assert.Equal(t, path+": "+want, fmt.Sprint(err))
			})
		}
		// a directory is a sharded set: its FIFO is a shard, refused
		s, err := load(dir)
		assert.Nil(t, s)
		assert.Equal(t, fifo+": "+cases[fifo], fmt.Sprint(err))
	}
}

func TestLineLimit(t *testing.T) {
	long := bytes.Repeat([]byte("1"), MaxLine+10)
	for name, load := range loaders {
		t.Run(name, func(t *testing.T) {
			// A line that never ends (like /dev/zero copied to a file),
			// after two good lines.
			head := "a,b\n1,2\n"
			want := ":3: record longer than 16777216 bytes"
			if name == "libsvm" {
				head, want = "1 1:1\n2 2:2\n", ":3: line longer than 16777216 bytes"
			}
			path := writeFile(t, "long", head+string(long))
			s, err := load(path)
			assert.Nil(t, s)
			assert.Equal(t, path+want, fmt.Sprint(err))

			// A long line that does end is refused too.
			path = writeFile(t, "long2", head+string(long)+"\n1,2\n")
			s, err = load(path)
			assert.Nil(t, s)
			assert.Equal(t, path+want, fmt.Sprint(err))
		})
	}
}

func TestMemoryBudget(t *testing.T) {
	// 2000 rows of 3 numbers: X and Columns take 2·2000·3·8 = 96000 bytes.
	var csv, svm strings.Builder
	csv.WriteString("a,b,c\n")
	for i := range 2000 {
		fmt.Fprintf(&csv, "%d,%d,%d\n", i, i+1, i+2)
		fmt.Fprintf(&svm, "%d 1:%d 2:%d\n", i, i+1, i+2)
	}
	csvPath := writeFile(t, "m.csv", csv.String())
	svmPath := writeFile(t, "m.svm", svm.String())

	s, err := LoadCSV(csvPath, CSVOptions{MaxMemory: 200000})
	require.NoError(t, err)
	assert.Equal(t, 2000, s.N())
	_, err = LoadCSV(csvPath, CSVOptions{MaxMemory: 50000})
	assert.Equal(t, csvPath+": a dense 2000 × 3 matrix and its 3 numeric columns needs about 93.8 KiB, more than the 48.8 KiB a data set may take (the loader's MaxMemory option)", fmt.Sprint(err))

	// 2000 × 2 dense plus labels: 48000 bytes.
	s, err = LoadLibSVM(svmPath, LibSVMOptions{MaxMemory: 60000})
	require.NoError(t, err)
	assert.False(t, s.IsSparse())
	_, err = LoadLibSVM(svmPath, LibSVMOptions{MaxMemory: 20000})
	assert.Equal(t, svmPath+": a dense 2000 × 2 matrix and 2000 labels needs about 46.9 KiB, more than the 19.5 KiB a data set may take (the loader's MaxMemory option)", fmt.Sprint(err))

	// The environment variable sets the default.
	t.Setenv(MemoryEnv, "10KB")
	limit, why := MemoryLimit()
	assert.Equal(t, int64(10000), limit)
	assert.Equal(t, "QRC_DATA_MEMORY=10KB", why)
	_, err = LoadCSV(csvPath, CSVOptions{})
	assert.Contains(t, fmt.Sprint(err), "more than the 9.77 KiB a data set may take (QRC_DATA_MEMORY=10KB)")
	t.Setenv(MemoryEnv, "off")
	_, err = LoadCSV(csvPath, CSVOptions{})
	assert.NoError(t, err)
	t.Setenv(MemoryEnv, "lots")
	_, why = MemoryLimit()
	assert.Contains(t, why, `; QRC_DATA_MEMORY="lots" is not a byte count such as 800MB, 2GiB or off, and was ignored`)
}

func TestMemoryEstimatedEarly(t *testing.T) {
	// A 40 MB file whose first block already shows that the set will not
	// fit is refused at the end of that block, with the estimate.
	var b bytes.Buffer
	b.WriteString("a,b,c,d\n")
	row := []byte("1.25,2.5,3.75,5\n")
	for b.Len() < 40<<20 {
		b.Write(row)
	}
	path := writeFile(t, "big.csv", b.String())
	_, err := LoadCSV(path, CSVOptions{MaxMemory: 10 << 20})
	var e *Error
	require.ErrorAs(t, err, &e)
	// The first block holds 4 MiB / 16 bytes per row ≈ 262144 rows.
	assert.Equal(t, 262144, e.Line)
	assert.Contains(t, e.Msg, "the set (estimated from the first 4.00 MiB of 40.0 MiB) needs about ")
	assert.Contains(t, e.Msg, "more than the 10.0 MiB a data set may take")
}

func TestParseBytes(t *testing.T) {
	for s, want := range map[string]int64{"800MB": 800e6, "2GiB": 2 << 30, "1e9": 1e9, "512 KiB": 512 << 10, "3k": 3000, "off": math.MaxInt64, "100b": 100} {
		got, err := ParseBytes(s)
		require.NoError(t, err, s)
		assert.Equal(t, want, got, s)
	}
	for _, s := range []string{"", "-1GB", "lots", "0", "1e30"} {
		_, err := ParseBytes(s)
		assert.Error(t, err, s)
	}
	assert.Equal(t, "763 MiB", FormatBytes(800e6))
	assert.Equal(t, "1.50 GiB", FormatBytes(3<<29))
	assert.Equal(t, "12 bytes", FormatBytes(12))
}

func TestHugeIndexInTinyFile(t *testing.T) {
	// Issue 16: a LIBSVM index of 1e8 in a 30-byte file took 19 s and 4 GB.
	// It is one nonzero: stored sparse, memory ∝ nonzeros, and a dense view
	// beyond the budget is refused with the number, the file and the line.
	path := writeFile(t, "tiny.svm", "1 1:1\n-1 2:3 100000000:0.5\n")
	s, err := LoadLibSVM(path, LibSVMOptions{MaxMemory: 100 << 20})
	require.NoError(t, err)
	require.True(t, s.IsSparse())
	assert.Equal(t, 2, s.N())
	assert.Equal(t, 100000000, s.D())
	assert.Equal(t, 3, s.Sparse.NNZ())
	assert.Equal(t, int64(12*3+8*3), s.Sparse.Bytes())
	assert.Nil(t, s.Features)
	assert.Equal(t, "f100000000", s.FeatureName(100000000))
	x, err := s.Dense()
	assert.Nil(t, x)
	assert.Equal(t, path+":2:8: a dense 2 × 100000000 matrix of this sparse set (3 nonzeros, density 1.5e-08) needs about 1.49 GiB, more than the 100 MiB a data set may take (the loader's MaxMemory option); the largest feature index is here", fmt.Sprint(err))
	assert.Nil(t, s.X)
}

func TestLibSVMByteOrderMark(t *testing.T) {
	path := writeFile(t, "bom.svm", "\uFEFF1 1:2\n-1 2:3\n")
	s, err := LoadLibSVM(path, LibSVMOptions{})
	require.NoError(t, err)
	assert.Equal(t, [][]float64{{2, 0}, {0, 3}}, rows(s.X))
	assert.Equal(t, []float64{1, -1}, s.Y)
}

// genSparse writes a LIBSVM file of n rows and d features in which each
// entry is nonzero with probability density, and returns the rows it wrote.
func genSparse(t testing.TB, dir string, n, d int, density float64, seed uint64) (string, []float64, [][]int32, [][]float64) {
	r := rand.New(rand.NewPCG(seed, 7))
	var b bytes.Buffer
	y := make([]float64, n)
	cols := make([][]int32, n)
	vals := make([][]float64, n)
	per := int(density * float64(d))
	for i := range n {
		y[i] = float64(2*r.IntN(2) - 1)
		b.WriteString(strconv.Itoa(int(y[i])))
		// per distinct sorted columns
		seen := map[int32]bool{}
		for len(seen) < per {
			seen[int32(r.IntN(d))] = true
		}
		for j := range seen {
			cols[i] = append(cols[i], j)
		}
		slices.Sort(cols[i])
		for range cols[i] {
			v := math.Round(r.NormFloat64()*1e6) / 1e6
			if v == 0 {
				v = 1
			}
			vals[i] = append(vals[i], v)
		}
		for k, j := range cols[i] {
			fmt.Fprintf(&b, " %d:%s", j+1, strconv.FormatFloat(vals[i][k], 'g', -1, 64))
		}
		b.WriteByte('\n')
	}
	path := filepath.Join(dir, "sparse.svm")
	require.NoError(t, os.WriteFile(path, b.Bytes(), 0o644))
	return path, y, cols, vals
}

func TestSparseSet(t *testing.T) {
	// 10^4 rows × 10^5 features at 0.1% density: 10^6 nonzeros, 12 MB as
	// CSR; a dense matrix would take 8 GB.
	const n, d = 10000, 100000
	path, y, cols, vals := genSparse(t, t.TempDir(), n, d, 0.001, 3)
	before := heapInUse()
	s, err := LoadLibSVM(path, LibSVMOptions{MaxMemory: 1 << 30})
	require.NoError(t, err)
	// The heap the set keeps is its CSR arrays and labels, within 1 MiB
	// of slack: memory ∝ nonzeros, not n·d.
	retained := heapInUse() - before
	assert.Less(t, retained, int64(12*n*100+8*(n+1)+8*n+1<<20), "retained %d bytes", retained)
	require.True(t, s.IsSparse())
	assert.Nil(t, s.X)
	assert.Equal(t, n, s.N())
	assert.Equal(t, d, s.D())
	assert.Equal(t, y, s.Y)
	m := s.Sparse
	assert.Equal(t, n*100, m.NNZ())
	assert.Equal(t, int64(12*n*100+8*(n+1)), m.Bytes())
	assert.InDelta(t, 0.001, m.Density(), 1e-12)
	for i := range n {
		c, v := m.Row(i)
		require.Equal(t, cols[i], c, "row %d", i)
		require.Equal(t, vals[i], v, "row %d", i)
	}
	_, err = s.Dense()
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Contains(t, e.Msg, "a dense 10000 × 100000 matrix of this sparse set (1000000 nonzeros, density 0.001) needs about 7.45 GiB")
	assert.Positive(t, e.Line)
}

func TestSparseDenseAgree(t *testing.T) {
	// A set stored sparse gives, through Dense, the matrix a dense load
	// gives (Features fixes d so that the dense load keeps its width).
	path, _, cols, vals := genSparse(t, t.TempDir(), 300, 400, 0.01, 5)
	s, err := LoadLibSVM(path, LibSVMOptions{Features: 400})
	require.NoError(t, err)
	require.True(t, s.IsSparse())
	x, err := s.Dense()
	require.NoError(t, err)
	assert.Same(t, x, s.X)
	for i := range 300 {
		want := make([]float64, 400)
		for k, j := range cols[i] {
			want[j] = vals[i][k]
		}
		require.Equal(t, want, rows(x)[i])
	}
}

// a9a is the LIBSVM version of Adult's test split.
var a9a = filepath.Join("..", "..", "shared", "data", "a9a.t")

func TestLoadA9a(t *testing.T) {
	requireFile(t, a9a)
	raw, err := os.ReadFile(a9a)
	require.NoError(t, err)
	// Independent counts: lines, "idx:value" tokens, labels.
	lines := bytes.Split(bytes.TrimRight(raw, "\n"), []byte("\n"))
	nnz := 0
	labels := map[string]bool{}
	for _, l := range lines {
		f := strings.Fields(string(l))
		labels[f[0]] = true
		nnz += len(f) - 1
	}
	// Feature 123 never occurs in the test split; a9a has 123 features.
	s, err := LoadLibSVM(a9a, LibSVMOptions{Features: 123})
	require.NoError(t, err)
	assert.Equal(t, 16281, s.N())
	assert.Equal(t, len(lines), s.N())
	assert.Equal(t, 123, s.D())
	assert.True(t, s.IsSparse(), "a9a has 11% nonzeros")
	assert.Equal(t, nnz, s.Sparse.NNZ())
	assert.Equal(t, []float64{-1, 1}, s.Labels())
	assert.Len(t, labels, 2)
	for _, v := range s.Sparse.Val {
		require.Equal(t, 1.0, v) // binary features
	}
	x, err := s.Dense()
	require.NoError(t, err)
	assert.Equal(t, float64(nnz), sumAll(x.RawMatrix().Data))
}

// heapInUse returns the live heap after a collection.
func heapInUse() int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

func sumAll(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s
}
