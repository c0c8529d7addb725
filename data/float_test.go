package data

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// refParse is the independent reference: strconv.ParseFloat, finite only.
func refParse(s string) (float64, bool) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, false
	}
	return v, true
}

func TestParseFloatEdgeCases(t *testing.T) {
	good := []string{
		"0", "-0", "+0", "0.0", "-0.0", "1", "-1", "+1", ".5", "5.", "-.5", "007", "1e5", "1E5", "1e+5", "1e-5",
		"1.5e-3", "9007199254740992", "9007199254740993", "9007199254740991", "18446744073709551615",
		"123456789012345678901234567890", "0.1", "0.2", "0.3", "2.2250738585072011e-308", "2.2250738585072014e-308",
		"4.9e-324", "5e-324", "2e-324", "1e-400", "1.7976931348623157e308", "1e22", "1e23", "1e-22", "1e-23",
		"123456789e-22", "8.98846567431158e307", "0.000000000000000000000000000001", "1" + strings.Repeat("0", 30),
		"0." + strings.Repeat("0", 40) + "1", "3.14159265358979323846264338327950288", "1e0", "1e-0", "1e00005",
		"7.038531e-26", "9.999999999999999e22", "4503599627370496.5", "4503599627370497.5",
	}
	for _, s := range good {
		want, ok := refParse(s)
		require.True(t, ok, s)
		got, ok := parseFloat([]byte(s))
		require.True(t, ok, s)
		assert.Equal(t, math.Float64bits(want), math.Float64bits(got), s)
	}
	bad := []string{
		"", "+", "-", ".", "e5", "1e", "1e+", "1e-", "1.2.3", "1e5.5", "0x1p-2", "0x10", "1_000", "1__0", "inf", "-Inf",
		"+inf", "NaN", "nan", "infinity", "1e400", "-1e309", " 1", "1 ", "1,5", "--1", "+-1", "1f", "1d", "½", "0b101", "0o17",
	}
	for _, s := range bad {
		_, ok := parseFloat([]byte(s))
		assert.False(t, ok, s)
	}
}

func TestParseFloatRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	digits := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte('0' + r.IntN(10))
		}
		return string(b)
	}
	for range 200000 {
		var s string
		switch r.IntN(4) {
		case 0: // a float64 printed the shortest way, in %g or %e
			v := math.Float64frombits(r.Uint64())
			if math.IsInf(v, 0) || math.IsNaN(v) {
				continue
			}
			s = strconv.FormatFloat(v, "eg"[r.IntN(2)], -1, 64)
		case 1: // data-like decimals
			s = digits(1+r.IntN(4)) + "." + digits(1+r.IntN(8))
		case 2: // long mantissas and exponents around the fast path's edges
			s = digits(1+r.IntN(25)) + "e" + strconv.Itoa(r.IntN(80)-40)
		default: // a value printed with a random precision
			v := r.NormFloat64() * math.Pow(10, float64(r.IntN(40)-20))
			s = strconv.FormatFloat(v, 'f', r.IntN(20), 64)
		}
		if r.IntN(3) == 0 {
			s = "-" + s
		}
		want, wok := refParse(s)
		got, gok := parseFloat([]byte(s))
		require.Equal(t, wok, gok, s)
		require.Equal(t, math.Float64bits(want), math.Float64bits(got), s)
	}
}

func FuzzParseFloat(f *testing.F) {
	for _, s := range []string{"1.5", "-0", "1e22", "0x1p-2", "1_0", ".5e-3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := parseFloat([]byte(s))
		if !ok {
			return
		}
		// Whatever parseFloat accepts, strconv accepts with the same value.
		want, wok := refParse(s)
		if !wok || math.Float64bits(want) != math.Float64bits(got) {
			t.Fatalf("parseFloat(%q) = %v, strconv gives %v (ok %v)", s, got, want, wok)
		}
	})
}
