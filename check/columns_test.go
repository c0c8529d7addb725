package check_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/qrc-lang/qrc/check"
)

// TestUsedColumns: with Options.UsedColumns a CSV or Parquet set keeps
// the values of the columns the model names only (the text column sex in
// a filter; y, as P.y) and the other columns' names with nil values (a,
// read as P.X[i, 1] only); the checked model is the same as with every
// column kept.
func TestUsedColumns(t *testing.T) {
	dir := peopleDir(t)
	for _, loader := range []string{"csv", "parquet"} {
		t.Run(loader, func(t *testing.T) {
			model := `data P = ` + loader + `("p.` + loader + `", label = "y", drop = ["sex"], missing = "drop")
var w
minimize mean(i in P where P.sex[i] == "female") (w - P.X[i, 1])^2 + mean(i in P) P.y[i] * w
`
			all, err := src(t, model, check.Options{Dir: dir})
			require.NoError(t, err)
			used, err := src(t, model, check.Options{Dir: dir, UsedColumns: true})
			require.NoError(t, err)
			s, u := all.Data[0].Set, used.Data[0].Set
			assert.NotNil(t, s.Columns["a"])
			a, ok := u.Columns["a"]
			assert.True(t, ok, "the name stays")
			assert.Nil(t, a, "P.a is not named")
			assert.NotNil(t, u.Columns["sex"])
			assert.Equal(t, s.Columns["sex"], u.Columns["sex"])
			assert.Equal(t, s.Columns["y"], u.Columns["y"], "the name y is used (P.y): kept, although P.y reads the label")
			assert.Equal(t, s.Y, u.Y)
			assert.Equal(t, s.X.RawMatrix().Data, u.X.RawMatrix().Data)
			assert.Equal(t, check.Means(all.Objective.Expr)[0].Rows, check.Means(used.Objective.Expr)[0].Rows)
			assert.Equal(t, int64(4*1*8), used.DataBytes(), "X: 4 complete rows of the one feature a")
		})
	}
}
