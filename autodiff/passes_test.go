package autodiff

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/qrc-lang/qrc/check"
)

// TestPassOrder: every pass has a unique name, every pass it must follow
// is in the table and comes before it, the compiler's passes have code
// and the lazy ones (run by Jacobian) come last.
func TestPassOrder(t *testing.T) {
	t.Parallel()
	at := map[string]int{}
	for i, ps := range passes {
		_, dup := at[ps.name]
		require.False(t, dup, "pass %q twice", ps.name)
		at[ps.name] = i
	}
	seenLazy := false
	for i, ps := range passes {
		for _, a := range ps.after {
			j, ok := at[a]
			require.True(t, ok, "pass %q follows %q, which is not a pass", ps.name, a)
			require.Less(t, j, i, "pass %q must follow %q", ps.name, a)
		}
		require.Equal(t, !ps.lazy, ps.run != nil, "pass %q: code exactly when the compiler runs it", ps.name)
		require.True(t, ps.lazy || !seenLazy, "pass %q comes after a lazy pass", ps.name)
		seenLazy = seenLazy || ps.lazy
	}
}

// TestDisableNames: Options.Disable refuses a name that is not a pass and
// a pass the program needs.
func TestDisableNames(t *testing.T) {
	t.Parallel()
	m, _ := load(t, "../examples/npc.qrc", check.Options{})
	_, err := CompileWith(m, Options{Disable: []string{"no-such-pass"}})
	require.ErrorContains(t, err, `no pass "no-such-pass"`)
	_, err = CompileWith(m, Options{Disable: []string{"link"}})
	require.ErrorContains(t, err, `pass "link" cannot be disabled`)
}

// TestDisableBitwise: a program compiled without any one optional pass
// computes bit for bit the values, gradients and Jacobian of the program
// compiled with every pass, on npc.qrc and the fairness model, whole and
// streamed in small blocks; without "shares", to rounding (1e-12
// relative, as TestShareSubsets).
func TestDisableBitwise(t *testing.T) {
	t.Parallel()
	var optional []string
	for _, ps := range passes {
		if ps.optional {
			optional = append(optional, ps.name)
		}
	}
	require.Subset(t, optional, []string{"shares", "windows", "sumback", "replicas", "tails"})
	for _, name := range []string{"npc", "fairness"} {
		for _, streamed := range []bool{false, true} {
			opts := func() *Options {
				o := allParallel(testOptions())
				if streamed {
					streamSmall(o, true)
				}
				return o
			}
			m, all := loadWith(t, "../examples/"+name+".qrc", check.Options{}, opts())
			x := randomPoint(m, rand.New(rand.NewPCG(81, 82)))
			want := allResults(t, all, x, rand.New(rand.NewPCG(83, 84)))
			for _, off := range optional {
				_, p := loadWith(t, "../examples/"+name+".qrc", check.Options{}, without(opts(), off))
				require.True(t, p.off[off])
				got := allResults(t, p, x, rand.New(rand.NewPCG(83, 84)))
				for i := range want {
					for j := range want[i] {
						if off == "shares" {
							require.InDelta(t, want[i][j], got[i][j], 1e-12*math.Max(1, math.Abs(want[i][j])), "%s (streamed %v) without %s: result %d, element %d", name, streamed, off, i, j)
							continue
						}
						require.Equal(t, math.Float64bits(want[i][j]), math.Float64bits(got[i][j]), "%s (streamed %v) without %s: result %d, element %d", name, streamed, off, i, j)
					}
				}
			}
		}
	}
}

// regsOf returns the registers a program reads and writes, indexed by id.
func regsOf(p *Program) []*reg {
	var regs []*reg
	add := func(r *reg) {
		for len(regs) <= r.id {
			regs = append(regs, nil)
		}
		regs[r.id] = r
	}
	for _, in := range p.insts {
		add(in.out)
		for _, r := range in.in {
			add(r)
		}
		if in.mask != nil {
			add(in.mask)
		}
	}
	for _, r := range p.outs {
		add(r)
	}
	return regs
}

// TestVerifyCatches: the verifier accepts a compiled program and rejects
// one with an operand used before it is defined, a register that is not
// the program's, a variable outside x, an instruction scheduled twice or
// out of order, and a function missing a dependency.
func TestVerifyCatches(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, want string
		spoil      func(p *Program)
	}{
		{"none", "", func(*Program) {}},
		{"swapped", "not defined before", func(p *Program) {
			k := slices.IndexFunc(p.insts, func(in *inst) bool { return len(in.in) > 0 && !in.in[0].konst })
			j := k - 1
			for p.insts[k].in[0].prod != p.insts[j].k {
				j--
			}
			p.insts[j], p.insts[k] = p.insts[k], p.insts[j]
			p.insts[j].k, p.insts[k].k = j, k
			p.insts[j].out.prod, p.insts[k].out.prod = j, k
		}},
		{"foreign register", "not a register of the program", func(p *Program) {
			in := p.insts[len(p.insts)-1]
			in.in = append(slices.Clone(in.in), &reg{id: 1 << 20, konst: true})
		}},
		{"variable outside x", "outside", func(p *Program) { p.vars[0].off = p.nvars }},
		{"scheduled twice", "exactly once", func(p *Program) {
			p.fwd[0].serial = append(p.fwd[0].serial, p.fwd[0].serial[0])
		}},
		{"out of order", "does not run before", func(p *Program) {
			last := &p.fwd[len(p.fwd)-1]
			p.fwd[0].serial, last.serial = last.serial, p.fwd[0].serial
		}},
		{"plan out of step", "decisions for", func(p *Program) { p.plan = p.plan[:len(p.plan)-1] }},
		{"wrong run kind", "runKind", func(p *Program) {
			p.plan[len(p.plan)-1].how = runVar
		}},
		{"wrong forward kind", "fwdKind", func(p *Program) {
			p.plan[len(p.plan)-1].fwd = fwdSharer
		}},
		{"computed register stored as sparse rows", "storage kind", func(p *Program) {
			p.insts[len(p.insts)-1].out.store = storeSparse
		}},
		{"rows by reference of another kind", "disagree", func(p *Program) {
			in := p.insts[slices.IndexFunc(p.insts, func(in *inst) bool { return in.op == opDot })]
			k := in.in[slices.IndexFunc(in.in, func(r *reg) bool { return r.konst })]
			k.refs = &rowRefs{}
		}},
		{"missing dependency", "dependenc", func(p *Program) {
			f := len(p.deps) - 1
			p.deps[f] = p.deps[f][1:]
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, p := load(t, "../examples/npc.qrc", check.Options{})
			regs := regsOf(p)
			tc.spoil(p)
			err := p.verify(regs)
			if tc.want == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, tc.want)
		})
	}
}
