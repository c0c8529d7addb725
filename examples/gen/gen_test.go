package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/qrc-lang/qrc/data"
)

// dataDir holds the committed data sets, relative to this package.
var dataDir = filepath.Join("..", "data")

// TestCommittedFilesUpToDate regenerates every data set in memory and checks
// it against the committed file. If it fails after a deliberate change, run
// "go run ./examples/gen" from the repository root.
func TestCommittedFilesUpToDate(t *testing.T) {
	for _, g := range generators {
		t.Run(g.name, func(t *testing.T) {
			var buf bytes.Buffer
			require.NoError(t, g.write(&buf))
			committed, err := os.ReadFile(filepath.Join(dataDir, g.name))
			require.NoError(t, err)
			assert.True(t, bytes.Equal(buf.Bytes(), committed),
				"%s differs from its generator; run go run ./examples/gen", g.name)
		})
	}
}

func TestDeterministic(t *testing.T) {
	for _, g := range generators {
		var a, b bytes.Buffer
		require.NoError(t, g.write(&a))
		require.NoError(t, g.write(&b))
		assert.Equal(t, a.String(), b.String(), g.name)
	}
}

func TestLoad(t *testing.T) {
	path := func(name string) string { return filepath.Join(dataDir, name) }

	t.Run("digits", func(t *testing.T) {
		s, err := data.LoadLibSVM(path("digits.svm"), data.LibSVMOptions{})
		require.NoError(t, err)
		assert.Equal(t, 3000, s.N())
		assert.Equal(t, 16, s.D())
		assert.Equal(t, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, s.Labels())
		counts := map[float64]int{}
		for _, y := range s.Y {
			counts[y]++
		}
		for c, k := range counts {
			assert.Equal(t, 300, k, "rows of class %v", c)
		}
		for i := range s.N() {
			for j := range s.D() {
				v := s.X.At(i, j)
				require.True(t, v >= 0 && v <= 100 && v == float64(int(v)), "X[%d,%d] = %v", i, j, v)
			}
		}
	})

	t.Run("fairness", func(t *testing.T) {
		s, err := data.LoadCSV(path("fairness.csv"), data.CSVOptions{Label: "y", Drop: []string{"group"}})
		require.NoError(t, err)
		assert.Equal(t, 1000, s.N())
		assert.Equal(t, []string{"x1", "x2", "x3", "x4", "x5"}, s.Features)
		assert.Equal(t, []float64{-1, 1}, s.Labels())
		group := s.Columns["group"]
		require.Len(t, group, 1000)
		var size, pos [2]int
		for i, g := range group {
			require.True(t, g == 0 || g == 1, "group[%d] = %v", i, g)
			size[int(g)]++
			if s.Y[i] == 1 {
				pos[int(g)]++
			}
		}
		assert.InDelta(t, 500, size[0], 50, "group sizes %v", size)
		// The labels favour group 1 clearly.
		rate0, rate1 := float64(pos[0])/float64(size[0]), float64(pos[1])/float64(size[1])
		assert.Greater(t, rate1-rate0, 0.3, "positive rates %.2f and %.2f", rate0, rate1)
	})

	t.Run("phase", func(t *testing.T) {
		s, err := data.LoadCSV(path("phase.csv"), data.CSVOptions{Label: "b"})
		require.NoError(t, err)
		assert.Equal(t, 200, s.N())
		assert.Equal(t, 8, s.D())
		outliers := 0
		for i, b := range s.Y {
			dot := 0.0
			for j, x := range phaseTruth {
				dot += s.X.At(i, j) * x
			}
			switch r := b - dot*dot; {
			case r >= 20 && r <= 50:
				outliers++
			default:
				assert.InDelta(t, 0, r, 1e-4, "row %d", i)
			}
		}
		assert.Equal(t, phaseOutliers, outliers)
	})

	// The stand-ins of the real sets: their columns (or features), and the
	// label and group rates their doc comments give.
	rate := func(s *data.Set, col string, v float64) (n int, pos float64) {
		k := 0
		for i, g := range s.Columns[col] {
			if g == v {
				n++
				if s.Y[i] == 1 {
					k++
				}
			}
		}
		return n, float64(k) / float64(n)
	}
	t.Run("adult", func(t *testing.T) {
		s, err := data.LoadCSV(path("adult.csv"), data.CSVOptions{Label: "income", Drop: []string{"male", "white"}})
		require.NoError(t, err)
		assert.Equal(t, adultRows, s.N())
		assert.Equal(t, 56, s.D(), "56 features, as in ../shared/data/adult.csv")
		assert.Equal(t, "age", s.Features[0])
		assert.Equal(t, "native_country_vietnam", s.Features[55])
		_, men := rate(s, "male", 1)
		_, women := rate(s, "male", 0)
		assert.InDelta(t, 0.33, men, 0.005)
		assert.InDelta(t, 0.14, women, 0.005)
	})
	t.Run("german", func(t *testing.T) {
		s, err := data.LoadCSV(path("german.csv"), data.CSVOptions{Label: "good", Drop: []string{"sex", "age"}})
		require.NoError(t, err)
		assert.Equal(t, germanRows, s.N())
		assert.Equal(t, 56, s.D(), "56 features, as in ../shared/data/german.csv")
		assert.Equal(t, "foreign_worker_a202", s.Features[55])
		_, r0 := rate(s, "sex", 0)
		_, r1 := rate(s, "sex", 1)
		assert.InDelta(t, 0.67, r0, 0.005)
		assert.InDelta(t, 0.74, r1, 0.005)
	})
	t.Run("a9a", func(t *testing.T) {
		s, err := data.LoadLibSVM(path("a9a.svm"), data.LibSVMOptions{Features: 123})
		require.NoError(t, err)
		assert.Equal(t, a9aRows, s.N())
		assert.Equal(t, 123, s.D())
		X, err := s.Dense() // a sparse set's X is nil until asked for
		require.NoError(t, err)
		pos := 0
		for i := range s.N() {
			ones := 0
			for j := range s.D() {
				switch v := X.At(i, j); v {
				case 1:
					ones++
				default:
					require.Zero(t, v)
				}
			}
			require.Equal(t, len(a9aGroups), ones, "row %d: one feature per group", i+1)
			require.Zero(t, s.X.At(i, 122), "feature 123 never occurs")
			if s.Y[i] == 1 {
				pos++
			}
		}
		assert.InDelta(t, 0.22, float64(pos)/float64(s.N()), 0.005)
	})
}

// --rows writes a LIBSVM set of the requested shape, the same bytes for
// the same seed.
func TestLarge(t *testing.T) {
	sp := largeSpec{Rows: 2000, Features: 16, Classes: 10, Noise: 0.18, Seed: 18}
	path := filepath.Join(t.TempDir(), largeName(sp))
	require.NoError(t, runLarge(sp, "", path))
	s, err := data.LoadLibSVM(path, data.LibSVMOptions{})
	require.NoError(t, err)
	assert.Equal(t, 2000, s.N())
	assert.Equal(t, 16, s.D())
	assert.Equal(t, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, s.Labels())
	for i := range s.N() {
		for j := range s.D() {
			v := s.X.At(i, j)
			require.True(t, v >= 0 && v <= 1, "X[%d,%d] = %v", i, j, v)
		}
	}
	var a, b bytes.Buffer
	require.NoError(t, writeLarge(&a, sp))
	require.NoError(t, writeLarge(&b, sp))
	assert.Equal(t, a.String(), b.String())
	committed, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, a.Bytes(), committed)
	sp.Seed++
	b.Reset()
	require.NoError(t, writeLarge(&b, sp))
	assert.NotEqual(t, a.String(), b.String())

	assert.Error(t, writeLarge(&b, largeSpec{Rows: 0, Features: 1, Classes: 2}))
	assert.Error(t, writeLarge(&b, largeSpec{Rows: 1, Features: 1, Classes: 1}))
	assert.Equal(t, "npc-1000000-16x10-s18.svm", largeName(defaultLarge))
	assert.Equal(t, "0.0001", string(appendFixed4(nil, 1)))
	assert.Equal(t, "0.1234", string(appendFixed4(nil, 1234)))
	assert.Equal(t, "1", string(appendFixed4(nil, 10000)))
}
