package data

import (
	"fmt"
	"math"
	"strconv"
)

// pow10 holds the powers of ten that float64 represents exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// parseFloat parses b as a decimal number in the form CSV and LIBSVM files
// write: an optional sign, digits with an optional decimal point (at least
// one digit before or after it), and an optional exponent "e" or "E" with an
// optional sign and at least one digit. Anything else — hexadecimal, digit
// separators "_", "inf", "nan", surrounding spaces — is refused, as is a
// number too large for float64. The result is correctly rounded.
//
// The common case (at most 19 digits whose value is at most 2^53, and a
// decimal exponent within ±22) is computed with one correctly rounded
// multiplication or division of two exact float64 values (Clinger's fast
// path); every other well-formed number goes to strconv.ParseFloat, so the
// result is always the one strconv gives.
func parseFloat(b []byte) (float64, bool) {
	v, end, ok := scanFloat(b, 0)
	return v, ok && end == len(b)
}

// scanFloat parses the longest number of parseFloat's form that starts at
// b[i] and returns its value and the offset just after it, so that a parser
// can read a number in the same pass that finds where the field ends (the
// caller checks that the byte at end may follow a number). ok is false when
// no well-formed number starts at i: no digit, an exponent without digits,
// or a number too large for float64; end is then meaningless.
func scanFloat(b []byte, i int) (v float64, end int, ok bool) {
	n := len(b)
	start := i
	neg := false
	if i < n && (b[i] == '+' || b[i] == '-') {
		neg = b[i] == '-'
		i++
	}
	// Up to 19 digits fit in mant; a longer mantissa goes to strconv.
	var mant uint64
	exp := 0
	ds := i
	for i < n {
		d := b[i] - '0'
		if d > 9 {
			break
		}
		mant = mant*10 + uint64(d)
		i++
	}
	intDigits := i - ds
	fracDigits := 0
	if i < n && b[i] == '.' {
		i++
		fs := i
		for i < n {
			d := b[i] - '0'
			if d > 9 {
				break
			}
			mant = mant*10 + uint64(d)
			i++
		}
		fracDigits = i - fs
		exp = -fracDigits
	}
	if intDigits+fracDigits == 0 {
		return 0, i, false
	}
	if i < n && (b[i] == 'e' || b[i] == 'E') {
		i++
		eneg := false
		if i < n && (b[i] == '+' || b[i] == '-') {
			eneg = b[i] == '-'
			i++
		}
		es := i
		e := 0
		for i < n {
			d := b[i] - '0'
			if d > 9 {
				break
			}
			if e < 100000 {
				e = e*10 + int(d)
			}
			i++
		}
		if i == es {
			return 0, i, false
		}
		if eneg {
			e = -e
		}
		exp += e
	}
	if intDigits+fracDigits <= 19 && mant <= 1<<53 && exp >= -22 && exp <= 22 {
		// Clinger's fast path: mant and 10^|exp| are exact, so one
		// correctly rounded operation gives the correctly rounded result.
		f := float64(mant)
		if exp < 0 {
			f /= pow10[-exp]
		} else {
			f *= pow10[exp]
		}
		if neg {
			f = -f
		}
		return f, i, true
	}
	f, err := strconv.ParseFloat(string(b[start:i]), 64)
	if err != nil || math.IsInf(f, 0) {
		return 0, i, false
	}
	return f, i, true
}

// badCell is the message for a cell parseFloat refuses in column name: a
// well-formed number beyond float64's range (1e999) is out of range, not
// non-numeric.
func badCell(cell []byte, name string) string {
	if outOfRange(cell) {
		return fmt.Sprintf("number %s in column %s is out of range (float64 holds magnitudes up to about 1.8e308)", quote(cell), quoteString(name))
	}
	return fmt.Sprintf("non-numeric cell %s in column %s", quote(cell), quoteString(name))
}

// outOfRange reports whether b has parseFloat's form but overflows float64.
func outOfRange(b []byte) bool {
	for _, c := range b {
		if !(c >= '0' && c <= '9' || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
			return false
		}
	}
	_, err := strconv.ParseFloat(string(b), 64)
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}
