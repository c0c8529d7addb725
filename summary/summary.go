// Package summary describes a checked model for people (Text) and for
// programs (the JSON form of Summary): its data sets, parameters, variables,
// objective and expanded constraints. It is what `qrc check` prints.
package summary

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/diag"
)

// Summary is the description of a model; its JSON form is documented in
// docs/cli.md.
type Summary struct {
	File        string       `json:"file"`
	Valid       bool         `json:"valid"`
	Data        []Data       `json:"data"`
	Params      []Param      `json:"params"`
	Variables   []Variable   `json:"variables"`
	Objective   *Objective   `json:"objective"`
	Constraints []Constraint `json:"constraints"`
	Scalars     int          `json:"scalars"`
	// Biased lists the functions whose data means a minibatch cannot
	// estimate without bias (check.BiasedMeans); the stochastic oracle
	// refuses them unless told --allow-biased. Empty when every mean is
	// estimable.
	Biased      []Biased     `json:"biased"`
	Diagnostics []Diagnostic `json:"diagnostics"`
}

// Biased is a data mean whose minibatch estimate is biased.
type Biased struct {
	Function string `json:"function"` // "objective" or a constraint's name
	Mean     string `json:"mean"`     // where the mean is written
	Why      string `json:"why"`      // e.g. "inside log(...)"
	Context  string `json:"context"`  // where the nonlinear operation is written
}

// Data describes a data set.
type Data struct {
	Name     string `json:"name"`
	Loader   string `json:"loader"`
	Path     string `json:"path"`
	Rows     int    `json:"rows"`
	Features int    `json:"features"`
	// Labels are the distinct label values, sorted, when there are at most
	// MaxLabels of them; null otherwise or without labels.
	Labels []float64 `json:"labels"`
	// DistinctLabels counts the distinct label values; LabelMin and
	// LabelMax bound them (all 0 without labels).
	DistinctLabels int      `json:"distinct_labels"`
	LabelMin       float64  `json:"label_min"`
	LabelMax       float64  `json:"label_max"`
	Columns        []string `json:"columns"` // named columns (CSV), sorted
	// Storage is how the program reads the features: "dense", "sparse"
	// (CSR, over the nonzeros) or "made dense" (a sparse file that the
	// model needs as a dense matrix, at DenseAt). Nonzeros counts the
	// stored entries of a sparse file (0 for a dense one).
	Storage  string `json:"storage"`
	Nonzeros int    `json:"nonzeros"`
	DenseAt  string `json:"dense_at"` // file:line:col, or ""
}

// MaxLabels is the most distinct label values listed in Data.Labels.
const MaxLabels = 50

// Param describes a parameter.
type Param struct {
	Name       string `json:"name"`
	Shape      []int  `json:"shape"`
	Value      any    `json:"value"` // a number, a list, or a list of lists
	Expr       string `json:"expr"`
	Overridden bool   `json:"overridden"`
}

// Variable describes a decision variable.
type Variable struct {
	Name   string `json:"name"`
	Shape  []int  `json:"shape"`
	Size   int    `json:"size"`
	Offset int    `json:"offset"` // position of its first element in the flat vector
	Domain Domain `json:"domain"`
	Start  any    `json:"start"` // a number when every element starts there, else a list (row-major)
}

// Domain describes a variable's domain.
type Domain struct {
	Kind   string   `json:"kind"` // unbounded, box, ball, ball_rows, simplex
	Text   string   `json:"text"` // as in a model: ball(0.1, rows)
	Radius *float64 `json:"radius,omitempty"`
	Lo     any      `json:"lo,omitempty"`
	Hi     any      `json:"hi,omitempty"`
}

// Objective describes the objective.
type Objective struct {
	Sense string `json:"sense"`
	Expr  string `json:"expr"`
	Pos   string `json:"pos"`
	Means []Mean `json:"means"`
}

// Constraint describes one expanded constraint F(x) <= 0.
type Constraint struct {
	Name  string `json:"name"`
	Group string `json:"group"`
	Index []int  `json:"index"`
	Op    string `json:"op"`
	Expr  string `json:"expr"` // lhs op rhs as written (indices not substituted)
	// Source is the whole declaration, e.g. "cap[k in 2..K]: loss(k) <= r".
	Source string `json:"source"`
	Pos    string `json:"pos"`
	Means  []Mean `json:"means"`
}

// Mean describes a mean over data rows (an expectation).
type Mean struct {
	Data  string `json:"data"`
	Rows  int    `json:"rows"`  // rows selected; -1 when it depends on an outer index
	Total int    `json:"total"` // rows of the data set
	Pos   string `json:"pos"`
	// Biased says why a minibatch estimate of this mean biases its
	// function ("inside log(...)"); empty when it does not.
	Biased string `json:"biased,omitempty"`
}

// Diagnostic is an error or warning.
type Diagnostic struct {
	Severity string `json:"severity"`
	Pos      string `json:"pos"`
	File     string `json:"file"`
	Line     int    `json:"line"`
	Column   int    `json:"column"`
	Message  string `json:"message"`
}

// Diagnostics converts a diagnostic list.
func Diagnostics(l diag.List) []Diagnostic {
	out := make([]Diagnostic, 0, len(l))
	for _, d := range l {
		out = append(out, Diagnostic{Severity: d.Severity.String(), Pos: d.Pos.String(), File: d.Pos.Filename,
			Line: d.Pos.Line, Column: d.Pos.Column, Message: d.Msg})
	}
	return out
}

// Of summarises a checked model (m may be nil for an invalid one).
func Of(file string, m *check.Model, diags diag.List) *Summary {
	s := &Summary{File: file, Valid: m != nil, Diagnostics: Diagnostics(diags),
		Data: []Data{}, Params: []Param{}, Variables: []Variable{}, Constraints: []Constraint{}, Biased: []Biased{}}
	if m == nil {
		return s
	}
	for _, d := range m.Data {
		cols := []string{}
		for name := range d.Set.Columns {
			cols = append(cols, name)
		}
		slices.Sort(cols)
		ds := Data{Name: d.Name, Loader: d.Loader, Path: d.Path, Rows: d.Set.N(), Features: d.Set.D(), Columns: cols, Storage: "dense"}
		if d.Set.IsSparse() {
			ds.Storage, ds.Nonzeros = "sparse", d.Set.Sparse.NNZ()
			if d.DenseAt.IsValid() {
				ds.Storage, ds.DenseAt = "made dense", d.DenseAt.String()
			}
		}
		if labels := d.Set.Labels(); len(labels) > 0 {
			ds.DistinctLabels, ds.LabelMin, ds.LabelMax = len(labels), labels[0], labels[len(labels)-1]
			if len(labels) <= MaxLabels {
				ds.Labels = labels
			}
		}
		s.Data = append(s.Data, ds)
	}
	for _, p := range m.Params {
		s.Params = append(s.Params, Param{Name: p.Name, Shape: shape(p.Value.Shape), Value: tensorValue(p.Value),
			Expr: p.Expr, Overridden: p.Overridden})
	}
	for _, v := range m.Vars {
		s.Variables = append(s.Variables, Variable{Name: v.Name, Shape: shape(v.Shape), Size: v.Size, Offset: v.Offset,
			Domain: domainOf(v), Start: compact(check.Tensor{Shape: v.Shape, Data: v.Start})})
	}
	if o := m.Objective; o != nil {
		s.Objective = &Objective{Sense: o.Src.Sense, Expr: check.ExprString(o.Src.X), Pos: o.Src.Pos().String(), Means: means(o.Expr)}
		s.Biased = appendBiased(s.Biased, "objective", o.Expr, s.Objective.Means)
	}
	for _, c := range m.Constraints {
		src := c.Group.Src
		expr := check.ExprString(src.LHS) + " " + src.Op + " " + check.ExprString(src.RHS)
		head := src.Name.Name
		if len(src.Binders) > 0 {
			bs := make([]string, len(src.Binders))
			for i, b := range src.Binders {
				bs[i] = b.Name.Name + " in " + check.ExprString(b.Set)
			}
			head += "[" + strings.Join(bs, ", ") + "]"
		}
		s.Constraints = append(s.Constraints, Constraint{Name: c.Name, Group: c.Group.Name, Index: nonNil(c.Index), Op: c.Op,
			Expr: expr, Source: head + ": " + expr, Pos: src.Pos().String(), Means: means(c.F)})
		last := &s.Constraints[len(s.Constraints)-1]
		s.Biased = appendBiased(s.Biased, c.Name, c.F, last.Means)
	}
	s.Scalars = m.NumScalars
	return s
}

func nonNil(x []int) []int {
	if x == nil {
		return []int{}
	}
	return x
}

func shape(s check.Shape) []int { return nonNil([]int(s)) }

func means(e check.Expr) []Mean {
	out := []Mean{}
	seen := map[*check.Compr]bool{}
	for _, c := range check.Means(e) {
		if seen[c] {
			continue
		}
		seen[c] = true
		rows := c.Data.Set.N()
		switch {
		case c.Rows != nil:
			rows = len(c.Rows)
		case c.Where != nil:
			rows = -1
		}
		out = append(out, Mean{Data: c.Data.Name, Rows: rows, Total: c.Data.Set.N(), Pos: c.Src().Pos().String()})
	}
	return out
}

// appendBiased appends the biased means of function e (named name) and
// marks them among its means ms.
func appendBiased(out []Biased, name string, e check.Expr, ms []Mean) []Biased {
	from := len(out) // only this function's entries can repeat
	for _, b := range check.BiasedMeans(e) {
		pos := b.Mean.Src().Pos().String()
		nb := Biased{Function: name, Mean: pos, Why: b.Why, Context: b.Context.Pos().String()}
		if !slices.Contains(out[from:], nb) { // a function called twice inlines its mean twice
			out = append(out, nb)
		}
		for i := range ms {
			if ms[i].Pos == pos {
				ms[i].Biased = b.Why
			}
		}
	}
	return out
}

func domainOf(v *check.Var) Domain {
	d := v.Domain
	out := Domain{Kind: d.Kind.String(), Text: d.String()}
	switch d.Kind.String() {
	case "ball", "ball_rows", "simplex", "l1ball":
		r := d.Radius
		out.Radius = &r
	case "box":
		out.Lo = infText(compact(check.Tensor{Shape: v.Shape, Data: d.Lo}))
		out.Hi = infText(compact(check.Tensor{Shape: v.Shape, Data: d.Hi}))
	}
	return out
}

// infText replaces the infinite bounds of a box in a compacted bound (a
// number, a list or a list of lists) by the strings "inf" and "-inf",
// which JSON can hold.
func infText(v any) any {
	switch v := v.(type) {
	case float64:
		switch {
		case math.IsInf(v, 1):
			return "inf"
		case math.IsInf(v, -1):
			return "-inf"
		}
		return v
	case []float64:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = infText(x)
		}
		return out
	case [][]float64:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = infText(x)
		}
		return out
	}
	return v
}

// tensorValue converts t to a number, list or list of lists for JSON.
func tensorValue(t check.Tensor) any {
	switch t.Shape.Rank() {
	case 0:
		return t.Data[0]
	case 1:
		return append([]float64(nil), t.Data...)
	}
	rows := make([][]float64, t.Shape[0])
	for r := range rows {
		rows[r] = t.Data[r*t.Shape[1] : (r+1)*t.Shape[1]]
	}
	return rows
}

// compact is a single number when all elements are equal, else the list.
func compact(t check.Tensor) any {
	for _, v := range t.Data {
		if v != t.Data[0] {
			return tensorValue(t)
		}
	}
	if len(t.Data) == 0 {
		return nil
	}
	return t.Data[0]
}

func num(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// labelText describes label values: "1..10 (10 values)" for consecutive
// integers, else the values (abbreviated).
func labelText(d Data) string {
	labels := d.Labels
	if d.DistinctLabels == 0 {
		return "no labels"
	}
	consecutive := len(labels) > 2
	for i, v := range labels {
		if v != math.Trunc(v) || i > 0 && v != labels[i-1]+1 {
			consecutive = false
		}
	}
	if consecutive {
		return fmt.Sprintf("labels %s..%s (%d values)", num(labels[0]), num(labels[len(labels)-1]), len(labels))
	}
	if d.DistinctLabels > 10 {
		return fmt.Sprintf("%d distinct label values in [%s, %s]", d.DistinctLabels, num(d.LabelMin), num(d.LabelMax))
	}
	parts := make([]string, len(labels))
	for i, v := range labels {
		parts[i] = num(v)
	}
	return "labels " + strings.Join(parts, ", ")
}

func valueText(v any) string {
	switch v := v.(type) {
	case float64:
		return num(v)
	case []float64:
		return check.Tensor{Shape: check.Shape{len(v)}, Data: v}.String()
	case [][]float64:
		var flat []float64
		for _, r := range v {
			flat = append(flat, r...)
		}
		return check.Tensor{Shape: check.Shape{len(v), len(v[0])}, Data: flat}.String()
	case nil:
		return "-"
	}
	return fmt.Sprint(v)
}

func shapeText(s []int) string {
	if len(s) == 0 {
		return "scalar"
	}
	parts := make([]string, len(s))
	for i, d := range s {
		parts[i] = strconv.Itoa(d)
	}
	return strings.Join(parts, "×")
}

// maxListed is how many constraints Text lists before it abbreviates (the
// JSON form always lists all).
const maxListed = 40

// Text writes the summary for people.
func (s *Summary) Text(w io.Writer) {
	if !s.Valid {
		fmt.Fprintf(w, "%s: invalid model\n", s.File)
		return
	}
	fmt.Fprintf(w, "%s: valid model\n", s.File)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	section := func(title string) { fmt.Fprintf(tw, "\n%s\n", title) }
	if len(s.Data) > 0 {
		section("data sets")
		for _, d := range s.Data {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%d rows, %d features, %s%s\n", d.Name, d.Loader, d.Path, d.Rows, d.Features, labelText(d), storageText(d))
		}
	}
	if len(s.Params) > 0 {
		section("parameters")
		for _, p := range s.Params {
			note := ""
			if p.Overridden {
				note = "\t(set on the command line)"
			}
			fmt.Fprintf(tw, "  %s\t= %s%s\n", p.Name, valueText(p.Value), note)
		}
	}
	section("variables")
	if len(s.Variables) == 0 {
		fmt.Fprintf(tw, "  none\n")
	}
	for _, v := range s.Variables {
		fmt.Fprintf(tw, "  %s\t%s\tin %s\tstart %s\t%d scalar%s\n", v.Name, shapeText(v.Shape), v.Domain.Text, valueText(v.Start),
			v.Size, plural(v.Size))
	}
	section("objective")
	if s.Objective == nil {
		fmt.Fprintf(tw, "  none (feasibility problem)\n")
	} else {
		fmt.Fprintf(tw, "  %s %s\t%s\n", s.Objective.Sense, s.Objective.Expr, meansText(s.Objective.Means))
	}
	section(fmt.Sprintf("constraints (%d)", len(s.Constraints)))
	if len(s.Constraints) == 0 {
		fmt.Fprintf(tw, "  none\n")
	}
	for i, c := range s.Constraints {
		if i == 0 || c.Group != s.Constraints[i-1].Group {
			fmt.Fprintf(tw, "  %s\n", c.Source)
		}
		if len(s.Constraints) > maxListed && i == maxListed-5 {
			fmt.Fprintf(tw, "    ... %d more\n", len(s.Constraints)-maxListed+1)
		}
		if len(s.Constraints) > maxListed && i >= maxListed-5 && i < len(s.Constraints)-4 {
			continue
		}
		if len(c.Index) > 0 || len(c.Means) > 0 {
			fmt.Fprintf(tw, "    %s\t%s\n", c.Name, meansText(c.Means))
		}
	}
	tw.Flush()
	fmt.Fprintf(w, "\n%d scalar decision variable%s\n", s.Scalars, plural(s.Scalars))
	if len(s.Biased) > 0 {
		fmt.Fprintf(w, "\nnot for the stochastic oracle (a minibatch estimate of these functions is biased):\n")
		for _, b := range s.Biased {
			fmt.Fprintf(w, "  %s: %s: the mean over data rows is %s (%s)\n", b.Mean, b.Function, b.Why, b.Context)
		}
	}
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func meansText(ms []Mean) string {
	if len(ms) == 0 {
		return ""
	}
	parts := make([]string, len(ms))
	for i, m := range ms {
		switch {
		case m.Rows < 0:
			parts[i] = fmt.Sprintf("%s filtered rows", m.Data)
		case m.Rows == m.Total:
			parts[i] = fmt.Sprintf("%s all %d rows", m.Data, m.Total)
		default:
			parts[i] = fmt.Sprintf("%s %d/%d rows", m.Data, m.Rows, m.Total)
		}
	}
	word := "mean"
	if len(ms) > 1 {
		word = "means"
	}
	return word + " over " + strings.Join(parts, ", ")
}

// storageText says how a sparse file's features are read ("" for a dense
// file).
func storageText(d Data) string {
	if d.Storage == "dense" {
		return ""
	}
	share := float64(d.Nonzeros) / (float64(d.Rows) * float64(max(1, d.Features)))
	text := fmt.Sprintf("; sparse, %d nonzeros (%.2g%%)", d.Nonzeros, 100*share)
	if d.Storage == "made dense" {
		return text + ", made dense for the use of X at " + d.DenseAt
	}
	return text + ", read over the nonzeros"
}
