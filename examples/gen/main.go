// Command gen writes the example data sets used by the qrc examples.
//
// Run it from the repository root:
//
//	go run ./examples/gen [-out examples/data]
//
// It writes seven files, byte for byte the same on every run, since each is
// drawn from its own fixed-seed PCG generator:
//
//   - digits.svm: LIBSVM, 3000 rows, 16 features, labels 1..10. A Gaussian
//     mixture shaped like pendigits: per class and feature the mean is drawn
//     uniformly from [10, 90], values have standard deviation 12 and are
//     rounded and clipped to the integers 0..100. The 300 rows of each class
//     are shuffled together; zero features are omitted as LIBSVM does.
//   - fairness.csv: header x1,x2,x3,x4,x5,group,y; 1000 rows. The group is 0
//     or 1 with equal probability; the features are standard normal, with x1
//     and x2 shifted up in group 1. The label y in {-1, 1} is the sign of a
//     noisy linear function of the features that also favours group 1, so a
//     plain classifier has a higher positive rate in group 1.
//   - phase.csv: header a1..a8,b; 200 rows. The a entries are standard
//     normal and b = (a·x*)² for the sparse x* with x*₃ = 1.5 and x*₇ = -1
//     (1-based; all other entries 0), computed from the rounded a. Ten rows,
//     chosen at random, are gross outliers: b is increased by a uniform draw
//     from [20, 50].
//   - adult.csv, german.csv, a9a.svm: small stand-ins for the real data sets
//     of ../shared/data (adult.csv, german.csv, a9a.t) with the same columns
//     (features), so that examples/adult.qrc, german.qrc and np.qrc run from
//     a fresh clone and on the real files with --data; see standins.go.
//   - npc-head.svm: the first 2000 rows of the large set below with its
//     defaults (the 10^6-row file's first lines), so that
//     docs/experiments/np_hinge_gen.qrc runs from a fresh clone.
//
// Real values are written with four decimals.
//
// With --rows N it writes instead one large synthetic classification set
// in LIBSVM format, for the large-data measurements of
// docs/performance.md (issue 18), and nothing else:
//
//	go run ./examples/gen --rows 1000000 --out /tmp    # /tmp/npc-1000000-16x10-s18.svm, 148 MB
//
// With --shards S as well it writes the same rows as S shards
// train-00000.parquet, ... (--format parquet, csv or libsvm) into --out,
// for sharded data sets and qrc-beam (docs/distributed.md):
//
//	go run ./examples/gen --rows 1000000 --shards 4 --format parquet --out /tmp/npc4
//
// N rows, --features (16) features in [0, 1], labels 1..--classes (10)
// drawn uniformly; each class's mean per feature is uniform in [0.2, 0.8],
// a value is its class's mean plus Gaussian noise (--noise, 0.18), clipped
// to [0, 1] (see large.go). --seed (18) seeds it; --file names the file
// (default: in --out, named after the sizes and the seed). Such files are
// large: keep them out of the repository.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
)

// A generator writes one data set to w.
type generator struct {
	name  string
	write func(w io.Writer) error
}

// generators lists the files gen writes, in order.
var generators = []generator{
	{"digits.svm", writeDigits},
	{"fairness.csv", writeFairness},
	{"phase.csv", writePhase},
	{"adult.csv", writeAdult},
	{"german.csv", writeGerman},
	{"a9a.svm", writeA9a},
	{"npc-head.svm", writeLargeHead},
}

func main() {
	out := flag.String("out", filepath.Join("examples", "data"), "directory to write the data sets to")
	sp := defaultLarge
	rows := flag.Int("rows", 0, "write only a large synthetic classification set of this many rows (LIBSVM)")
	flag.IntVar(&sp.Features, "features", sp.Features, "with --rows: the number of features")
	flag.IntVar(&sp.Classes, "classes", sp.Classes, "with --rows: the number of classes")
	flag.Float64Var(&sp.Noise, "noise", sp.Noise, "with --rows: the standard deviation of the noise around the class means")
	flag.Uint64Var(&sp.Seed, "seed", sp.Seed, "with --rows: the generator's seed")
	file := flag.String("file", "", "with --rows: the file to write (default: in --out, named after the sizes and the seed)")
	shards := flag.Int("shards", 0, "with --rows: write the set as this many shards train-00000.EXT, ... in --out")
	format := flag.String("format", "parquet", "with --shards: the shards' format: parquet, csv or libsvm")
	flag.Parse()
	if *rows != 0 && *shards != 0 {
		sp.Rows = *rows
		if err := runShards(sp, *shards, *format, *out); err != nil {
			fmt.Fprintln(os.Stderr, "gen:", err)
			os.Exit(1)
		}
		return
	}
	if *rows != 0 {
		sp.Rows = *rows
		if err := runLarge(sp, *out, *file); err != nil {
			fmt.Fprintln(os.Stderr, "gen:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(*out); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

// run writes every data set into dir.
func run(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, g := range generators {
		path := filepath.Join(dir, g.name)
		if err := writeFile(path, g.write); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		fmt.Println("wrote", path)
	}
	return nil
}

// runLarge writes the large set sp into file, or into dir under its
// default name when file is empty.
func runLarge(sp largeSpec, dir, file string) error {
	if err := sp.check(); err != nil {
		return err
	}
	if file == "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		file = filepath.Join(dir, largeName(sp))
	}
	if err := writeFile(file, func(w io.Writer) error { return writeLarge(w, sp) }); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	fmt.Println("wrote", file)
	return nil
}

// writeFile creates path and fills it with write.
func writeFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(f)
	if err := write(bw); err != nil {
		f.Close()
		return err
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// Digits mixture parameters.
const (
	digitClasses  = 10
	digitFeatures = 16
	digitsPer     = 300
	digitStd      = 12
)

// writeDigits writes digits.svm.
func writeDigits(w io.Writer) error {
	r := rand.New(rand.NewPCG(0x5EED_D161, 1))
	var means [digitClasses][digitFeatures]float64
	for c := range means {
		for j := range means[c] {
			means[c][j] = 10 + 80*r.Float64()
		}
	}
	labels := make([]int, 0, digitClasses*digitsPer)
	for c := range digitClasses {
		for range digitsPer {
			labels = append(labels, c)
		}
	}
	r.Shuffle(len(labels), func(i, j int) { labels[i], labels[j] = labels[j], labels[i] })

	bw := bufio.NewWriter(w)
	for _, c := range labels {
		bw.WriteString(strconv.Itoa(c + 1))
		for j, mu := range means[c] {
			v := math.Round(mu + digitStd*r.NormFloat64())
			v = min(max(v, 0), 100)
			if v != 0 {
				fmt.Fprintf(bw, " %d:%d", j+1, int(v))
			}
		}
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// writeFairness writes fairness.csv.
func writeFairness(w io.Writer) error {
	r := rand.New(rand.NewPCG(0x5EED_FA12, 2))
	shift := [5]float64{1.0, 0.8, 0, 0, 0}       // added to the features in group 1
	weight := [5]float64{1.0, 0.8, -0.6, 0.4, 0} // of the labelling rule
	const (
		bias      = -0.8 // of the labelling rule
		groupBias = 0.5  // added to the rule in group 1
		noise     = 0.5  // standard deviation of the rule's noise
	)

	bw := bufio.NewWriter(w)
	bw.WriteString("x1,x2,x3,x4,x5,group,y\n")
	for range 1000 {
		g := r.IntN(2)
		score := bias + groupBias*float64(g) + noise*r.NormFloat64()
		for j := range shift {
			x := round4(r.NormFloat64() + shift[j]*float64(g))
			score += weight[j] * x
			bw.WriteString(fixed4(x))
			bw.WriteByte(',')
		}
		y := -1
		if score > 0 {
			y = 1
		}
		fmt.Fprintf(bw, "%d,%d\n", g, y)
	}
	return bw.Flush()
}

// Phase retrieval problem parameters.
const (
	phaseRows     = 200
	phaseCols     = 8
	phaseOutliers = 10
)

// phaseTruth is the sparse signal behind phase.csv.
var phaseTruth = [phaseCols]float64{2: 1.5, 6: -1}

// writePhase writes phase.csv.
func writePhase(w io.Writer) error {
	r := rand.New(rand.NewPCG(0x5EED_0FA5, 3))
	outlier := make([]bool, phaseRows)
	for _, i := range r.Perm(phaseRows)[:phaseOutliers] {
		outlier[i] = true
	}

	bw := bufio.NewWriter(w)
	for j := range phaseCols {
		fmt.Fprintf(bw, "a%d,", j+1)
	}
	bw.WriteString("b\n")
	for i := range phaseRows {
		dot := 0.0
		for j := range phaseCols {
			a := round4(r.NormFloat64())
			dot += a * phaseTruth[j]
			bw.WriteString(fixed4(a))
			bw.WriteByte(',')
		}
		b := dot * dot
		if outlier[i] {
			b += 20 + 30*r.Float64()
		}
		bw.WriteString(fixed4(b))
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// round4 rounds v to four decimals.
func round4(v float64) float64 { return math.Round(v*1e4) / 1e4 }

// fixed4 formats v with four decimals, writing zero without a minus sign.
func fixed4(v float64) string {
	s := strconv.FormatFloat(v, 'f', 4, 64)
	if s == "-0.0000" {
		return "0.0000"
	}
	return s
}
