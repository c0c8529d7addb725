package serve

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/data"
)

// table is a test table: the same cells as a CSV text and as a frame.
type table struct {
	names []string
	text  []bool      // a text column
	cells [][]string  // rows of CSV cells ("" missing)
	nums  [][]float64 // per column, NaN missing (numeric columns)
	words [][]string  // per column (text columns)
	rows  int
}

// randomTable has columns a (numeric), g (0/1), s (text), y (±1) and b
// (numeric with missing cells).
func randomTable(rng *rand.Rand, rows int, missing bool) *table {
	t := &table{names: []string{"a", "g", "s", "y", "b"}, text: []bool{false, false, true, false, false}, rows: rows}
	t.nums = make([][]float64, len(t.names))
	t.words = make([][]string, len(t.names))
	levels := []string{"north", "south", "east"}
	for i := range rows {
		var row []string
		for j := range t.names {
			var cell string
			switch t.names[j] {
			case "a":
				v := rng.NormFloat64() * math.Pow(10, float64(rng.IntN(20)-10))
				cell = strconv.FormatFloat(v, 'g', -1, 64)
				t.nums[j] = append(t.nums[j], v)
			case "g":
				v := float64(rng.IntN(2))
				cell = strconv.FormatFloat(v, 'g', -1, 64)
				t.nums[j] = append(t.nums[j], v)
			case "y":
				v := float64(2*rng.IntN(2) - 1)
				cell = strconv.FormatFloat(v, 'g', -1, 64)
				t.nums[j] = append(t.nums[j], v)
			case "b":
				v := rng.Float64()
				if missing && i%7 == 3 {
					cell, v = "", math.NaN()
				} else {
					cell = strconv.FormatFloat(v, 'g', -1, 64)
				}
				t.nums[j] = append(t.nums[j], v)
			case "s":
				cell = levels[rng.IntN(len(levels))]
				if i == 0 {
					cell = "east" // not the first level listed
				}
				t.words[j] = append(t.words[j], cell)
			}
			row = append(row, cell)
		}
		t.cells = append(t.cells, row)
	}
	return t
}

func (t *table) csv() string {
	var b strings.Builder
	b.WriteString(strings.Join(t.names, ",") + "\n")
	for _, r := range t.cells {
		b.WriteString(strings.Join(r, ",") + "\n")
	}
	return b.String()
}

// frame encodes the table as a client sends it.
func (t *table) frame(tb testing.TB) *frame {
	tb.Helper()
	req := &frameRequest{Name: "test", Kind: "table", Rows: t.rows}
	var payload bytes.Buffer
	for j, name := range t.names {
		if !t.text[j] {
			req.Columns = append(req.Columns, columnHeader{Name: name, Kind: "float64"})
			for _, v := range t.nums[j] {
				binary.Write(&payload, binary.LittleEndian, v)
			}
			continue
		}
		var levels []string
		for _, w := range t.words[j] {
			if !slices.Contains(levels, w) {
				levels = append(levels, w)
			}
		}
		req.Columns = append(req.Columns, columnHeader{Name: name, Kind: "text", Levels: levels})
		for _, w := range t.words[j] {
			binary.Write(&payload, binary.LittleEndian, int32(slices.Index(levels, w)+1))
		}
		for payload.Len()%8 != 0 {
			payload.WriteByte(0)
		}
	}
	size, err := req.payloadSize()
	if err != nil || size != int64(payload.Len()) {
		tb.Fatalf("payload %d bytes, want %d (%v)", payload.Len(), size, err)
	}
	b := alignedBytes(payload.Len())
	copy(b, payload.Bytes())
	f, err := newFrame(req, b)
	if err != nil {
		tb.Fatal(err)
	}
	return f
}

// sameSet fails unless a and b hold the same data bit for bit.
func sameSet(t *testing.T, a, b *data.Set) {
	t.Helper()
	if a.N() != b.N() || a.D() != b.D() {
		t.Fatalf("sizes %dx%d and %dx%d", a.N(), a.D(), b.N(), b.D())
	}
	bits := func(v []float64) []uint64 {
		out := make([]uint64, len(v))
		for i, x := range v {
			out[i] = math.Float64bits(x)
		}
		return out
	}
	if !slices.Equal(bits(a.X.RawMatrix().Data), bits(b.X.RawMatrix().Data)) {
		t.Errorf("X differs")
	}
	if !slices.Equal(bits(a.Y), bits(b.Y)) || (a.Y == nil) != (b.Y == nil) {
		t.Errorf("Y differs: %v and %v", a.Y, b.Y)
	}
	if !slices.Equal(a.Features, b.Features) || a.LabelName != b.LabelName || a.Dropped != b.Dropped {
		t.Errorf("features %v label %q dropped %d, and %v %q %d", a.Features, a.LabelName, a.Dropped, b.Features, b.LabelName, b.Dropped)
	}
	if len(a.Columns) != len(b.Columns) {
		t.Errorf("columns %d and %d", len(a.Columns), len(b.Columns))
	}
	for name, va := range a.Columns {
		vb, ok := b.Columns[name]
		if !ok || !slices.Equal(bits(va), bits(vb)) || (va == nil) != (vb == nil) {
			t.Errorf("column %q differs (present %v)", name, ok)
		}
	}
	if len(a.Text) != len(b.Text) {
		t.Errorf("text columns %d and %d", len(a.Text), len(b.Text))
	}
	for name, ta := range a.Text {
		tb, ok := b.Text[name]
		if !ok || !slices.Equal(ta.Levels, tb.Levels) {
			t.Errorf("text column %q: levels %v and %v", name, ta.Levels, tb)
		}
	}
}

// TestFrameMatchesCSV: a table sent as a frame is the data set that the
// CSV loader makes of the same cells, for the options a declaration can
// give (label, drop, missing, the columns the model uses).
func TestFrameMatchesCSV(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	cases := []struct {
		name    string
		missing bool
		opt     data.CSVOptions
	}{
		{"label and drops", false, data.CSVOptions{Label: "y", Drop: []string{"g", "s"}}},
		{"no label", false, data.CSVOptions{Drop: []string{"s"}}},
		{"used columns", false, data.CSVOptions{Label: "y", Drop: []string{"g", "s"}, Columns: []string{"g", "s"}}},
		{"missing dropped rows", true, data.CSVOptions{Label: "y", Drop: []string{"s"}, Missing: "drop"}},
		{"missing cell in a dropped column", true, data.CSVOptions{Label: "y", Drop: []string{"s", "b"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tab := randomTable(rng, 201, c.missing) // odd: a text column is padded
			want, err := data.ReadCSV(strings.NewReader(tab.csv()), "test.csv", c.opt)
			if err != nil {
				t.Fatal(err)
			}
			got, err := tab.frame(t).set(check.DataRequest{Name: "D", Loader: "csv", CSV: c.opt})
			if err != nil {
				t.Fatal(err)
			}
			sameSet(t, got, want)
		})
	}
}

// TestFrameErrors: what the CSV loader refuses, a frame refuses, saying
// which column.
func TestFrameErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	tab := randomTable(rng, 20, true)
	f := tab.frame(t)
	for _, c := range []struct {
		opt  data.CSVOptions
		want string
	}{
		{data.CSVOptions{Label: "nosuch"}, `no label column "nosuch"`},
		{data.CSVOptions{Label: "y", Drop: []string{"zz"}}, `no column "zz" to drop`},
		{data.CSVOptions{Label: "y", Drop: []string{"g"}}, `column "s" is a feature but holds text`},
		{data.CSVOptions{Label: "y", Drop: []string{"s"}}, `missing value (NaN) in column "b", row 4`},
	} {
		_, err := f.set(check.DataRequest{Name: "D", Loader: "csv", CSV: c.opt})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one with %q", c.opt, err, c.want)
		}
		if _, err := data.ReadCSV(strings.NewReader(tab.csv()), "t.csv", c.opt); err == nil {
			t.Errorf("%+v: the CSV loader takes what the frame refuses", c.opt)
		}
	}
}

// TestBadFrames: frames that do not fit their header are refused with a
// reason, never a panic.
func TestBadFrames(t *testing.T) {
	le := func(vs ...any) []byte {
		var b bytes.Buffer
		for _, v := range vs {
			binary.Write(&b, binary.LittleEndian, v)
		}
		out := alignedBytes(b.Len())
		copy(out, b.Bytes())
		return out
	}
	for _, c := range []struct {
		name    string
		req     frameRequest
		payload []byte
		want    string
	}{
		{"no rows", frameRequest{Kind: "matrix", Rows: 0, Cols: 1}, nil, "at least one row"},
		{"huge", frameRequest{Kind: "matrix", Rows: 1 << 40, Cols: 1 << 40}, nil, "beyond the sizes"},
		{"kind", frameRequest{Kind: "cube", Rows: 1}, nil, "kind must be"},
		{"duplicate column", frameRequest{Kind: "table", Rows: 1, Columns: []columnHeader{{Name: "a", Kind: "float64"}, {Name: " a", Kind: "float64"}}}, nil, `"a" appears twice`},
		{"code out of range", frameRequest{Kind: "table", Rows: 2, Columns: []columnHeader{{Name: "s", Kind: "text", Levels: []string{"x"}}}}, le(int32(1), int32(2)), "category code 2"},
		{"row pointers", frameRequest{Kind: "sparse", Rows: 2, Cols: 3, NNZ: 1}, le(int64(0), int64(2), int64(1), int32(0), int32(0), 1.5), "malformed"},
		{"column index", frameRequest{Kind: "sparse", Rows: 1, Cols: 3, NNZ: 1}, le(int64(0), int64(1), int32(7), int32(0), 1.5), "outside 0..2"},
	} {
		size, err := c.req.payloadSize()
		if err == nil && size == int64(len(c.payload)) {
			_, err = newFrame(&c.req, c.payload)
		} else if err == nil {
			t.Fatalf("%s: payload %d bytes, header wants %d", c.name, len(c.payload), size)
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one with %q", c.name, err, c.want)
		}
	}
}
