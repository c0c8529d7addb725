package check

// filterRows evaluates a where filter over the rows of one data binder b
// (1..n) column-wise, without the interpreter's per-row work: on 10^7 rows
// the row-by-row evaluation of train.y[i] == k took 19 s for npc.qrc's ten
// instances, this takes a scan of the column each. It handles comparisons
// whose sides are either a column of b's row (D.y[i], D.col[i]) or free of
// b (evaluated once), combined with and, or and not; ok is false for any
// other filter, which the caller then evaluates row by row.
func filterRows(where Expr, b *Binder, n int) (rows []int, ok bool) {
	return FilterRows(where, b, n, nil)
}

// FilterRows is filterRows with the other binders the filter may depend
// on bound in ix (a function's parameter, an enclosing index), for
// callers that expand a model themselves (the weak-convexity analysis):
// the rows 1..n of b's data set where the filter holds, or ok false when
// the filter is not of the form filterRows handles.
func FilterRows(where Expr, b *Binder, n int, ix map[*Binder]int) (rows []int, ok bool) {
	mask, ok := rowMask(where, b, n, ix)
	if !ok {
		return nil, false
	}
	rows = []int{}
	for i, m := range mask {
		if m {
			rows = append(rows, i+1)
		}
	}
	return rows, true
}

// rowMask is where's value at every row, or ok false.
func rowMask(e Expr, b *Binder, n int, ix env) (mask []bool, ok bool) {
	switch e := e.(type) {
	case *Compare:
		xc, xs, ok := rowSide(e.X, b, n, ix)
		if !ok {
			return nil, false
		}
		yc, ys, ok := rowSide(e.Y, b, n, ix)
		if !ok || xc == nil && yc == nil {
			return nil, false // free of b: the caller's evaluation is as cheap
		}
		mask = make([]bool, n)
		for i := range mask {
			x, y := xs, ys
			if xc != nil {
				x = xc[i]
			}
			if yc != nil {
				y = yc[i]
			}
			mask[i] = Holds(e.Op, x, y)
		}
		return mask, true
	case *Logic:
		x, ok := rowMask(e.X, b, n, ix)
		if !ok {
			return nil, false
		}
		if e.Op == "not" {
			for i := range x {
				x[i] = !x[i]
			}
			return x, true
		}
		y, ok := rowMask(e.Y, b, n, ix)
		if !ok {
			return nil, false
		}
		for i := range x {
			if e.Op == "and" {
				x[i] = x[i] && y[i]
			} else {
				x[i] = x[i] || y[i]
			}
		}
		return x, true
	}
	return nil, false
}

// rowSide is one side of a comparison: a column indexed by b (col, of
// length n) or a scalar free of b (v) whose binders are bound in ix.
func rowSide(e Expr, b *Binder, n int, ix env) (col []float64, v float64, ok bool) {
	if ix, isIndex := e.(*Index); isIndex && len(ix.Idx) == 1 {
		if iv, isVal := ix.Idx[0].(*IndexVal); isVal && iv.Binder == b {
			df, isData := ix.X.(*DataField)
			if !isData || df.Field == "X" {
				return nil, 0, false
			}
			t, err := dataTensor(df)
			if err != nil || len(t.Data) != n {
				return nil, 0, false
			}
			return t.Data, 0, true
		}
	}
	for f := range freeBinders(e) {
		if _, bound := ix[f]; !bound || f == b {
			return nil, 0, false
		}
	}
	if !e.Shape().IsScalar() {
		return nil, 0, false
	}
	t, err := eval(e, ix)
	if err != nil || len(t.Data) != 1 {
		return nil, 0, false
	}
	return nil, t.Data[0], true
}
