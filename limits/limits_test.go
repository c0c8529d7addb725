package limits

import (
	"math"
	"testing"
)

func TestMul(t *testing.T) {
	for _, tc := range []struct {
		a, b, max, want int
		ok              bool
	}{
		{3, 4, 12, 12, true},
		{3, 4, 11, 0, false},
		{0, math.MaxInt, 10, 0, true},
		{1 << 40, 1 << 40, math.MaxInt, 0, false}, // 2^80 wraps to 0 in int64
		{1 << 32, 1 << 32, math.MaxInt, 0, false}, // 2^64 wraps to 0
		{1 << 31, 1 << 31, math.MaxInt, 1 << 62, true},
		{-1, 2, 10, 0, false},
	} {
		got, ok := Mul(tc.a, tc.b, tc.max)
		if ok != tc.ok || ok && got != tc.want {
			t.Errorf("Mul(%d, %d, %d) = %d, %v; want %d, %v", tc.a, tc.b, tc.max, got, ok, tc.want, tc.ok)
		}
	}
}

func TestProduct(t *testing.T) {
	if n, ok := Product([]int{10, 16}, MaxElements); !ok || n != 160 {
		t.Errorf("Product(10, 16) = %d, %v", n, ok)
	}
	if _, ok := Product([]int{1 << 40, 1 << 40}, MaxElements); ok {
		t.Error("Product(2^40, 2^40) fits")
	}
	if n, ok := Product([]int{1 << 13, 1 << 13}, MaxElements); !ok || n != MaxElements {
		t.Errorf("Product(2^13, 2^13) = %d, %v; want exactly MaxElements", n, ok)
	}
	if _, ok := Product([]int{1 << 13, 1 << 13, 2}, MaxElements); ok {
		t.Error("Product(2^13, 2^13, 2) = 2^27 fits under MaxElements = 2^26")
	}
}
