package weakconvex

import (
	"math"
	"strings"
	"testing"

	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/modelfile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// header declares the variables and helper functions of the table's
// models: x in [-1, 2]^3, y in [0.5, 2], u unbounded.
const header = `var x[3] in box(-1, 2)
var y in box(0.5, 2)
var u
var b[2] in ball(2)
func sq(z) = z * z
func sig(z) = 1 / (1 + exp(-z))
`

// loadExpr checks a model minimising expr.
func loadExpr(t testing.TB, expr string) *check.Model {
	t.Helper()
	src := header + "minimize " + expr + "\n"
	m, _, diags := modelfile.LoadSource("case.qrc", []byte(src), check.Options{})
	require.NotNil(t, m, "%s: %v", expr, diags)
	return m
}

// Constants of the hand derivations below.
var (
	sigCurv  = 1 / (6 * math.Sqrt(3))     // max |sigmoid''|, at ±log(2+sqrt 3)
	tanhCurv = 4 / (3 * math.Sqrt(3))     // max |tanh''|, at ±atanh(1/sqrt 3)
	e2       = math.Exp(2)                // e^z at the top of [-1, 2]
	sqrtRho  = 0.25 * math.Pow(0.5, -1.5) // |sqrt''| at 0.5
)

type tableCase struct {
	expr string
	// rho and M are the bounds the rules give, derived by hand in the
	// comment; the analysis must return them up to slack (relative; 1e-9
	// for exact rules, more for the one-variable jets, whose pieces widen
	// the intervals a little). why is a part of the refusal's reason when
	// the expression must be refused.
	rho, m float64
	slack  float64
	smooth bool
	why    string
}

var table = []tableCase{
	// affine and convex atoms: rho = 0
	{expr: "x[1]", rho: 0, m: 1, smooth: true},
	{expr: "2 * x[1] - 3 * x[2] + 1", rho: 0, m: math.Sqrt(13), smooth: true},
	{expr: "abs(x[1])", rho: 0, m: 1},
	{expr: "abs(x[1]) + abs(x[2])", rho: 0, m: 2},                          // triangle inequality
	{expr: "3 * abs(x[1]) - 2 * x[2]", rho: 0, m: 5},                       // 3*1 + 2
	{expr: "hinge(x[1])", rho: 0, m: 1},                                    // kink at 1 inside [-1, 2]
	{expr: "pos(x[1] - 5)", rho: 0, m: 0, smooth: true},                    // x[1] - 5 < 0 on X: the zero function
	{expr: "exp(x[1])", rho: 0, m: e2, smooth: true},                       // exp' <= e^2
	{expr: "x[1]^2", rho: 0, m: 4, smooth: true},                           // |2z| <= 4
	{expr: "square(x[1] - x[2])", rho: 0, m: 6 * math.Sqrt2, smooth: true}, // |2t| <= 6 on t in [-3, 3], ||a|| = sqrt 2
	{expr: "huber(x[1], 0.5)", rho: 0, m: 1, smooth: true},
	{expr: "logistic(x[1])", rho: 0, m: 1 / (1 + math.Exp(-2)), smooth: true}, // sigmoid(2)
	{expr: "1 / y", rho: 0, m: 4, smooth: true},                               // 2/y^3 > 0; |1/y^2| <= 4
	{expr: "max(x[1], x[2])", rho: 0, m: 1},
	{expr: "max(j in 1..3) x[j]", rho: 0, m: 1},
	{expr: "max(x[1], 5)", rho: 0, m: 0, smooth: true}, // 5 > x[1] on X
	{expr: "min(x[1], 5)", rho: 0, m: 1, smooth: true}, // x[1] < 5 on X
	{expr: "sum(j in 1..3) abs(x[j])", rho: 0, m: 3},
	{expr: "norminf(x)", rho: 0, m: 1},
	{expr: "norm1(x)", rho: 0, m: 3},            // sum of the elements' slope bounds
	{expr: "norm2(x)", rho: 0, m: math.Sqrt(3)}, // 2-norm of the elements' slope bounds
	{expr: "norm2(b)", rho: 0, m: math.Sqrt(2)},
	{expr: "abs(u)", rho: 0, m: 1},
	{expr: "sq(x[1])", rho: 0, m: 4, slack: 1e-6, smooth: true}, // one variable: z*z
	// smooth atoms with curvature bounded on the argument's range
	{expr: "sigmoid(x[1])", rho: sigCurv, m: 0.25, smooth: true},                        // min sigmoid'' at log(2+sqrt 3) in [-1, 2]
	{expr: "sigmoid(x[1] - 3)", rho: 0, m: stdSig(-1) * (1 - stdSig(-1)), smooth: true}, // z in [-4, -1]: sigmoid'' > 0; slope at -1
	{expr: "sigmoid(u)", rho: sigCurv, m: 0.25, smooth: true},
	{expr: "2 * sigmoid(x[1])", rho: 2 * sigCurv, m: 0.5, smooth: true},
	{expr: "sig(x[1])", rho: sigCurv, m: 0.25, slack: 0.03, smooth: true}, // 1/(1+exp(-z)) written out: the jets
	{expr: "tanh(x[1])", rho: tanhCurv, m: 1, smooth: true},
	{expr: "-exp(x[1])", rho: e2, m: e2, smooth: true},
	{expr: "log(y)", rho: 4, m: 2, smooth: true},                // 1/y^2 <= 4, 1/y <= 2
	{expr: "log1p(y)", rho: 1 / 2.25, m: 1 / 1.5, smooth: true}, // 1/(1+y)^2 at y = 0.5
	{expr: "sqrt(y)", rho: sqrtRho, m: 0.5 / math.Sqrt(0.5), smooth: true},
	{expr: "x[1]^3", rho: 6, m: 12, smooth: true}, // 6z >= -6, 3z^2 <= 12
	{expr: "-x[1]^2", rho: 2, m: 4, smooth: true},
	{expr: "-sq(x[1])", rho: 2, m: 4, slack: 1e-6, smooth: true},
	{expr: "-square(x[1] - x[2])", rho: 4, m: 6 * math.Sqrt2, smooth: true},   // 2 ||a||^2
	{expr: "-huber(x[1], 0.5)", rho: 2, m: 1, smooth: true},                   // 1/delta
	{expr: "mcp(x[1], 1, 2)", rho: 0.5, m: 1},                                 // 1/gamma, lambda
	{expr: "scad(x[1], 1, 3)", rho: 0.5, m: 1},                                // 1/(a-1), lambda
	{expr: "sum(j in 1..3) mcp(x[j], 1, 2)", rho: 0.5, m: 3},                  // separable: rank-one terms on e_j
	{expr: "mean(j in 1..3) -square(x[j])", rho: 2.0 / 3, m: 4, smooth: true}, // (2/3) sum e_j e_j^T; slope 4 per term
	// convex-composite and max
	{expr: "abs(x[1]^2 - 1)", rho: 2, m: 4},                       // |h'| <= 1 times (z^2)'' = 2
	{expr: "pos(1 - x[1]^2)", rho: 2, m: 4},                       // h' in [0, 1] times (1 - z^2)'' = -2
	{expr: "mean(j in 1..3) abs(x[j]^2 - 1)", rho: 2.0 / 3, m: 4}, // rank-one terms (2/3) e_j e_j^T, not their trace 2
	{expr: "max(-square(x[1]), x[2])", rho: 2, m: 4},              // the smallest lower curvature
	{expr: "abs(sigmoid(x[1]) - 0.5)", rho: sigCurv, m: 0.25},     // |h'| <= 1 times |sigmoid''|
	// products (the bilinear rule), natural spellings of squares, trig
	{expr: "x[1] * x[2]", rho: 1, m: 4, smooth: true},          // Hessian [[0, 1], [1, 0]]; |x[2]| + |x[1]| <= 4
	{expr: "x[1] * x[1]", rho: 0, m: 4, smooth: true},          // the same affine term twice: a square
	{expr: "dot(x, x)", rho: 0, m: 12, smooth: true},           // sum of squares; 4 per element
	{expr: "norm2(x)^2", rho: 0, m: 12, smooth: true},          // read as sum(j) square(x[j])
	{expr: "prod(j in 1..2) x[j]", rho: 1, m: 4, smooth: true}, // x[1] * x[2]
	{expr: "-(x[1] * x[2])", rho: 1, m: 4, smooth: true},       // eigenvalues ±1
	{expr: "sin(x[1])", rho: 1, m: 1, smooth: true},            // -sin reaches -1 at pi/2 in [-1, 2]; cos(0) = 1
	{expr: "sin(u)", rho: 1, m: 1, smooth: true},
	{expr: "cos(x[1] / 4)", rho: 1.0 / 16, m: math.Sin(0.5) / 4, smooth: true}, // -cos(0) = -1 times (1/4)^2; sin(0.5)/4
	{expr: "tan(x[1] / 2)", rho: 2 * math.Tan(0.5) * (1 + math.Tan(0.5)*math.Tan(0.5)) / 4, m: (1 + math.Tan(1)*math.Tan(1)) / 2, smooth: true},
	{expr: "atan(x[1])", rho: 3 * math.Sqrt(3) / 8, m: 1, smooth: true},                                          // at 1/sqrt 3 and 0
	{expr: "erf(x[1])", rho: 2 * math.Sqrt(2/math.Pi) * math.Exp(-0.5), m: 2 / math.Sqrt(math.Pi), smooth: true}, // at 1/sqrt 2 and 0
	{expr: "log10(y)", rho: 4 / math.Ln10, m: 2 / math.Ln10, smooth: true},                                       // at y = 0.5
	// refused
	{expr: "-abs(x[1])", why: "concave kink"},
	{expr: "-norm2(x)", why: "concave kink"},
	{expr: "min(x[1], x[2])", why: "min of terms"},
	{expr: "min(j in 1..3) x[j]", why: "min of terms"},
	{expr: "min(x[1], 1)", why: "min of terms"},
	{expr: "dot(x, u * x)", why: "unbounded slopes"},
	{expr: "u * sin(x[1])", why: "not bounded"},
	{expr: "tan(x[1])", why: "reaches its pole at 1.571"},
	{expr: "(x[1] + 1)^y", why: "defined for x > 0, but the base's range on X is [0, 3]"},
	{expr: "x[1] / x[2]", why: "division by a variable term"},
	{expr: "1 / x[1]", why: "contains 0"},
	{expr: "log(x[1])", why: "log of an argument that can reach -1"},
	{expr: "sqrt(x[1] + 1)", why: "sqrt of an argument that can reach 0"},
	{expr: "-exp(u)", why: "unbounded downward curvature"},
	{expr: "u^3", why: "unbounded downward curvature"},
	{expr: "hinge(abs(x[1]))", why: "concave kink"},
	{expr: "sum(j in 1..3) -abs(x[j])", why: "concave kink"},

	// lists of expressions: their elements' analyses, element by element
	{expr: "norm2([x[1] - x[2], x[3]])", rho: 0, m: math.Sqrt(3)}, // ||(sqrt 2, 1)||
	{expr: "sum([x[1], -2 * x[2]])", rho: 0, m: math.Sqrt(5), smooth: true},
	{expr: "max([x[1], sq(x[2])])", rho: 0, m: 4},
	{expr: "norm1([x[1], -abs(x[2])])", why: "concave kink"},

	// conditionals (rule 12): if a > b then a else b is max(a, b), rule 7
	{expr: "if x[1] > x[2] then x[1] else x[2]", rho: 0, m: 1},
	{expr: "if x[1] <= 2 * x[2] then 2 * x[2] else x[1]", rho: 0, m: 2},
	{expr: "if sq(x[1]) >= x[2] then sq(x[1]) else x[2]", rho: 0, m: 4}, // a function's parameter: one node twice
	{expr: "if x[1] < x[2] then x[1] else x[2]", why: "min of terms whose ranges overlap"},
	// a condition the ranges decide (y >= 0.5): -log(y), slope 1/y <= 2
	{expr: "if y > 0 then -log(y) else -abs(y)", rho: 0, m: 2, smooth: true},
	{expr: "if y > 3 or x[1] > 5 then -abs(y) else y", rho: 0, m: 1, smooth: true},
	// a condition on an index: the branch at each j; -x[2]^2 has curvature -2
	// and each term slope 2 |x[j]| <= 4
	{expr: "sum(j in 1..3) (if j == 2 then -square(x[j]) else square(x[j]))", rho: 2, m: 12, smooth: true},
	// |x| written piece by piece: convex, but the rules cannot tell its
	// pieces meet in a convex kink
	{expr: "if x[1] > 0 then x[1] else -x[1]", why: "a conditional whose condition depends on the variables"},
	{expr: "if x[1] > 0 then -x[1] else x[1]", why: "may meet in a concave kink"},
}

func stdSig(z float64) float64 { return 1 / (1 + math.Exp(-z)) }

func TestTable(t *testing.T) {
	require.GreaterOrEqual(t, len(table), 40)
	for _, c := range table {
		t.Run(c.expr, func(t *testing.T) {
			m := loadExpr(t, c.expr)
			r := Analyze(m)
			require.NoError(t, r.Err)
			f := r.Functions[0]
			if c.why != "" {
				require.False(t, f.Weak, "%s: %s", c.expr, f.Verdict())
				require.NotNil(t, f.Why)
				assert.Contains(t, f.Why.Reason, c.why)
				assert.True(t, strings.HasPrefix(f.Why.Pos.String(), "case.qrc:"), f.Why.Pos.String())
				return
			}
			require.True(t, f.Weak, "%s: %s", c.expr, f.Verdict())
			slack := c.slack
			if slack == 0 {
				slack = 1e-9
			}
			within(t, "rho", f.Rho, c.rho, slack)
			within(t, "M", f.M, c.m, slack)
			assert.Equal(t, c.smooth, f.Smooth, "smooth")
		})
	}
}

// within asserts want <= got <= want (1 + slack) + 1e-12: sound (never
// below the true bound) and tight.
func within(t *testing.T, what string, got, want, slack float64) {
	t.Helper()
	assert.GreaterOrEqual(t, got, want*(1-1e-12)-1e-15, "%s = %v is below the bound %v", what, got, want)
	assert.LessOrEqual(t, got, want*(1+slack)+1e-12, "%s = %v is looser than %v", what, got, want)
}
