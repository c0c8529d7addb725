package autodiff

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestFlops counts by hand: mean(i in s) sigmoid(dot(s.X[i], x)) over 4
// rows of 3 features is a dot (2*4*3), a sigmoid (4) and a mean (4)
// forward; backward the mean (4), the sigmoid (4) and the dot into x
// (2*4*3).
func TestFlops(t *testing.T) {
	t.Parallel()
	csv := "a,b,c,y\n1,2,3,0\n4,5,6,1\n7,8,9,0\n1,1,1,1\n"
	_, p, err := compileSource(t, "data s = csv(\"d.csv\", label = \"y\")\nvar x[3] in box(-3, 3)\nminimize mean(i in s) sigmoid(dot(s.X[i], x))\n", map[string]string{"d.csv": csv})
	require.NoError(t, err)
	require.Equal(t, float64(24+4+4+4+4+24), p.Flops())
}
