package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
)

// largeSpec describes a large synthetic classification set in the shape of
// examples/npc.qrc's data (issue 18): Rows rows, Features features in
// [0, 1], labels 1..Classes drawn uniformly. Each class has a mean per
// feature drawn uniformly from [0.2, 0.8]; a value is its class's mean plus
// Gaussian noise of standard deviation Noise, clipped to [0, 1] and written
// with four decimals (zeros omitted, as LIBSVM does). Everything comes from
// one PCG generator seeded with Seed, so the file is byte for byte the same
// on every run and machine.
type largeSpec struct {
	Rows, Features, Classes int
	Noise                   float64
	Seed                    uint64
}

// defaultLarge is the 10^6-row, 16-feature, 10-class set.
var defaultLarge = largeSpec{Rows: 1_000_000, Features: 16, Classes: 10, Noise: 0.18, Seed: 18}

// check validates the spec.
func (sp largeSpec) check() error {
	switch {
	case sp.Rows <= 0:
		return errors.New("--rows must be positive")
	case sp.Features <= 0:
		return errors.New("--features must be positive")
	case sp.Classes < 2:
		return errors.New("--classes must be at least 2")
	case !(sp.Noise >= 0) || math.IsInf(sp.Noise, 0):
		return errors.New("--noise must be a nonnegative number")
	}
	return nil
}

// writeLarge writes the set sp describes to w in LIBSVM format.
func writeLarge(w io.Writer, sp largeSpec) error {
	if err := sp.check(); err != nil {
		return err
	}
	r := rand.New(rand.NewPCG(sp.Seed, 0x1a46e))
	means := make([][]float64, sp.Classes)
	for k := range means {
		means[k] = make([]float64, sp.Features)
		for j := range means[k] {
			means[k][j] = 0.2 + 0.6*r.Float64()
		}
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	line := make([]byte, 0, 16+12*sp.Features)
	for range sp.Rows {
		k := r.IntN(sp.Classes)
		line = strconv.AppendInt(line[:0], int64(k+1), 10)
		for j, mu := range means[k] {
			v := min(max(mu+sp.Noise*r.NormFloat64(), 0), 1)
			q := int(math.Round(v * 1e4)) // 0..10000
			if q == 0 {
				continue
			}
			line = append(line, ' ')
			line = strconv.AppendInt(line, int64(j+1), 10)
			line = append(line, ':')
			line = appendFixed4(line, q)
		}
		line = append(line, '\n')
		if _, err := bw.Write(line); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// appendFixed4 appends q/10^4 (0 < q <= 10^4) with four decimals, "1"
// for q = 10^4.
func appendFixed4(b []byte, q int) []byte {
	if q >= 10000 {
		return append(b, '1')
	}
	return append(b, '0', '.', byte('0'+q/1000), byte('0'+q/100%10), byte('0'+q/10%10), byte('0'+q%10))
}

// largeName is the default file name of the set sp describes.
func largeName(sp largeSpec) string {
	return fmt.Sprintf("npc-%d-%dx%d-s%d.svm", sp.Rows, sp.Features, sp.Classes, sp.Seed)
}

// largeHeadRows is the number of rows of npc-head.svm.
const largeHeadRows = 2000

// writeLargeHead writes npc-head.svm: the first largeHeadRows rows of the
// large set with its defaults, since a set's rows do not depend on their
// number.
func writeLargeHead(w io.Writer) error {
	sp := defaultLarge
	sp.Rows = largeHeadRows
	return writeLarge(w, sp)
}
