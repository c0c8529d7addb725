package autodiff

import (
	"fmt"

	"github.com/qrc-lang/qrc/ast"
	"github.com/qrc-lang/qrc/check"
)

// SumSite is one sum or mean over the rows of a data set, as CompileScaled
// compiles it: where it is written, the how-manyth time that place is
// compiled (a function called twice compiles its means twice), and its rows.
type SumSite struct {
	Pos  ast.Pos
	Seq  int    // 0 for the first compilation of Pos, 1 for the next, ...
	Op   string // "mean" or "sum"
	Data string // the data set's name
	// Rows holds, for every value of the indices that enclose the site
	// (row-major, one entry for a site without enclosing indices), the
	// number of the data set's rows the site sums over (after its where
	// filter).
	Rows []float64
}

// SumScale gives the factors by which CompileScaled multiplies a site's
// sums over rows, one per entry of site.Rows.
type SumScale func(site SumSite) ([]float64, error)

// CompileScaled is Compile with every mean and sum over the rows of a data
// set compiled as the sum over its rows times the factor scale returns for
// it (per value of the enclosing indices): a mean is its sum scaled by
// 1/Rows, and so scale returning 1/Rows compiles what Compile does, up to
// the rounding of the division. A mean whose filter selects no row is a
// sum of nothing, 0, instead of an error. This is how a shard of a data set
// computes its share of the whole set's means (scale 1/N with N the
// whole set's rows): the values of the shards' programs, less all but one
// of the values of the program with scale 0, add up to the whole set's
// values when every function is affine in the data means (package
// distrib checks that).
func CompileScaled(m *check.Model, scale SumScale) (*Program, error) {
	if scale == nil {
		return nil, fmt.Errorf("autodiff: CompileScaled without a scale")
	}
	return compile(m, scale, Options{})
}

// rowsOf returns the number of combinations of the axes' values.
func rowsOf(axes []*axis) int {
	n := 1
	for _, a := range axes {
		n *= a.n
	}
	return n
}

// scaleSums multiplies r, the sums of site e over its rows, by the factors
// scale gives for it; count holds its rows per value of the enclosing
// indices (r's axes), or one scalar for all.
func (c *compiler) scaleSums(e *check.Compr, r, count *reg, src ast.Node) *reg {
	if r == nil || c.failed {
		return nil
	}
	pos := src.Pos()
	if c.sites == nil {
		c.sites = map[ast.Pos]int{}
	}
	site := SumSite{Pos: pos, Seq: c.sites[pos], Op: e.Op, Data: e.Data.Name, Rows: append([]float64(nil), count.val...)}
	c.sites[pos]++
	f, err := c.scale(site)
	if err != nil {
		c.errorf(src, "%v", err)
		return nil
	}
	if len(f) != len(site.Rows) {
		c.errorf(src, "internal error: %d scale factors for %d row counts", len(f), len(site.Rows))
		return nil
	}
	var k *reg
	if len(f) == 1 {
		k = c.scalar(f[0], src)
	} else {
		k = c.konst(count.axes, count.elem, f, src)
	}
	return c.binaryRegs(opMul, "", r, k, src)
}
