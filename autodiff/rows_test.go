package autodiff

import (
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/qrc-lang/qrc/check"
)

// rowRefsAll makes the programs compiled with o keep every block of data
// rows by reference (with on false: none).
func rowRefsAll(o *Options, on bool) *Options {
	o.tune.rowRefMinBytes, o.tune.rowRefSubsetMinBytes = math.MaxInt64, math.MaxInt64
	if on {
		o.tune.rowRefMinBytes, o.tune.rowRefSubsetMinBytes = 0, 0
	}
	return o
}

// rowRefModels are streamModels plus npc.qrc with its product written as
// a sum over the features, and a model that uses the rows outside a
// product as well (gathered at compile time).
var rowRefModels = append(streamModels[:len(streamModels):len(streamModels)], []testModel{
	{name: "npc-sum", src: `data train = libsvm("d.svm")
param K = 2
var W[K, train.d] in ball(1)
func phi(z) = 1 / (1 + exp(z))
func loss(k) = mean(i in train where train.y[i] == k) sum(l in 1..K where l != k) phi(sum(j in 1..train.d) (W[k, j] - W[l, j]) * train.X[i, j])
minimize loss(1)
subject to
    cap: loss(2) <= 0.6
`, files: map[string]string{"d.svm": denseSVM(500)}},
	{name: "elementwise", src: `data s = csv("d.csv", label = "y", drop = ["g"])
var x[3] in ball(2)
minimize mean(i in s) logistic(-s.y[i] * dot(s.X[i], x)) + mean(i in s) sum(j in 1..s.d) abs(s.X[i, j]) * x[j]^2
`, files: map[string]string{"d.csv": streamData(400, 4)}},
}...)

// denseSVM is a LIBSVM set of n rows of 4 features, every one present
// (stored dense), labels 1 and 2.
func denseSVM(n int) string {
	rng := rand.New(rand.NewPCG(uint64(n), 11))
	s := ""
	for range n {
		k := 1 + rng.IntN(2)
		s += strconvF(float64(k))
		for j := range 4 {
			s += " " + strconvF(float64(j+1)) + ":" + strconvF(math.Round((rng.NormFloat64()+float64(k))*1000)/1000)
		}
		s += "\n"
	}
	return s
}

// refProducts counts the products that read rows by reference.
func refProducts(p *Program) int {
	n := 0
	for _, in := range p.insts {
		if in.refOperand() != nil {
			n++
		}
	}
	return n
}

// TestRowRefsBitwise: with the rows of every mean kept by reference, the
// values, subgradients and Jacobian are bit for bit those of the gathered
// blocks, on 1, 2 and 4 cores, on all rows and on a sample, streamed or
// not; the products read the rows in place (no gathered block is left in
// the program for them).
func TestRowRefsBitwise(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for i, sm := range rowRefModels {
		for _, streamed := range []bool{false, true} {
			t.Run(sm.name+map[bool]string{false: "", true: "/streamed"}[streamed], func(t *testing.T) {
				opts := func(on bool) *Options {
					o := rowRefsAll(allParallel(testOptions()), on)
					if streamed {
						streamSmall(o, true)
					}
					return o
				}
				_, gathered := rowRefModels[i].compileWith(t, opts(false))
				require.Zero(t, refProducts(gathered))
				m, refs := rowRefModels[i].compileWith(t, opts(true))
				if sm.name != "sparse" {
					require.Positive(t, refProducts(refs), "the products read their rows by reference")
				}
				x := randomPoint(m, rand.New(rand.NewPCG(uint64(i), 13)))
				requireSameBits(t, gathered, refs, x, 2, 5)
			})
		}
	}
}

// TestRowRefsPolicy: blocks of consecutive rows (a mean over all rows)
// are kept by reference from tuning.rowRefMinBytes and read in place, without a
// copy; so are blocks of scattered rows whose product is shared (a group's
// rows, read only when its mean is sampled); other blocks of scattered
// rows only from the subset threshold.
func TestRowRefsPolicy(t *testing.T) {
	t.Parallel()
	src := `data s = csv("d.csv", label = "y", drop = ["g"])
var x[3] in ball(2)
minimize mean(i in s) logistic(-s.y[i] * dot(s.X[i], x))
subject to
    rate: mean(i in s where s.g[i] == 1) sigmoid(dot(s.X[i], x)) <= 0.7
`
	// the group's mean alone: nothing to share with
	alone := strings.Replace(src, "mean(i in s) logistic(-s.y[i] * dot(s.X[i], x))", "x[1]^2", 1)
	files := map[string]string{"d.csv": streamData(3000, 5)}
	o := testOptions()
	o.tune.rowRefMinBytes, o.tune.rowRefSubsetMinBytes = 0, math.MaxInt64
	m, p, err := compileSourceWith(t, src, files, o)
	require.NoError(t, err)
	n := m.Data[0].Set.N()
	byRef, shared := 0, 0
	for _, in := range p.insts {
		r := in.refOperand()
		if r == nil {
			continue
		}
		byRef++
		if p.plan[in.k].share != nil {
			shared++
			continue
		}
		require.Equal(t, n, len(r.refs.rows), "the unshared product is the mean over all rows")
		// its blocks are read in place: the matrix itself, not a copy
		for _, blk := range [][2]int{{0, 100}, {1000, 1700}, {n - 5, n}} {
			got := in.gatherBlock(r, blk[0], blk[1], 0)
			require.Same(t, &r.refs.x[blk[0]*3], &got[0])
			require.Len(t, got, (blk[1]-blk[0])*3)
		}
	}
	require.Equal(t, 2, byRef, "both products read their rows by reference")
	require.Equal(t, 1, shared, "the group's product is shared")
	_, p, err = compileSourceWith(t, alone, files, o)
	require.NoError(t, err)
	require.Zero(t, refProducts(p), "scattered rows no product shares are gathered below the subset threshold")
	o = testOptions()
	o.tune.rowRefMinBytes, o.tune.rowRefSubsetMinBytes = 0, 0
	_, p, err = compileSourceWith(t, alone, files, o)
	require.NoError(t, err)
	require.Equal(t, 1, refProducts(p), "and by reference above it")
	_, p, err = compileSource(t, src, files)
	require.NoError(t, err)
	require.Zero(t, refProducts(p), "small blocks are gathered")
}

// TestRowRefsMemory: kept by reference, the rows of npc.qrc's ten class
// means take 4 bytes a row instead of a gathered copy of the data.
func TestRowRefsMemory(t *testing.T) {
	t.Parallel()
	m, p := loadWith(t, "../examples/npc.qrc", check.Options{}, rowRefsAll(testOptions(), true))
	n, d := m.Data[0].Set.N(), m.Data[0].Set.D()
	refs := 0
	for _, in := range p.insts {
		if r := in.refOperand(); r != nil {
			require.Nil(t, r.val, "no gathered values")
			require.Len(t, in.rowBuf, p.slots*(r.axes[0].capRows*d+windowGap), "a block of rows per worker, and the gap between workers")
			refs += len(r.refs.rows)
		}
	}
	require.Equal(t, n, refs, "every row is read by reference once, by its class's product")
}

// TestRowRefsSample: a sample of rows kept by reference is gathered once,
// at SetSample, into a buffer of the sample's size, and read in place
// again after ResetSamples.
func TestRowRefsSample(t *testing.T) {
	t.Parallel()
	m, p := loadWith(t, "../examples/fairness.qrc", check.Options{}, rowRefsAll(testOptions(), true))
	d := m.Data[0].Set.D()
	x := randomPoint(m, rand.New(rand.NewPCG(3, 4)))
	vals := make([]float64, len(p.Functions()))
	for s := range p.Samples() {
		require.NoError(t, p.SetSample(s, []int{7, 3, 3, 11}))
	}
	require.NoError(t, p.Eval(x, vals))
	refs := 0
	for _, in := range p.insts {
		r := in.refOperand()
		if r == nil || in.fwdAx.pos == nil {
			continue
		}
		refs++
		require.Len(t, r.val, 4*d, "the sample's rows, gathered")
		require.Equal(t, r.row(1), r.val[d:2*d])
	}
	require.Positive(t, refs)
	p.ResetSamples()
	for _, in := range p.insts {
		if r := in.refOperand(); r != nil {
			require.Nil(t, r.val, "read in place again")
		}
	}
}
