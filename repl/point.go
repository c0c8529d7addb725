package repl

import (
	"bytes"
	"slices"
	"strings"

	"github.com/qrc-lang/qrc/ast"
	"github.com/qrc-lang/qrc/autodiff"
	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/data"
	"github.com/qrc-lang/qrc/format"
	"github.com/qrc-lang/qrc/point"
)

// compiled is the program of the session's model, kept while the model's
// text (starting points aside) and its data sets stay the same.
type compiled struct {
	key  string
	sets []*data.Set
	prog *autodiff.Program
}

// program returns the compiled program of the current (valid) model and
// whether it was reused rather than compiled now. A model whose only change
// is a variable's starting point keeps its program; data files that did not
// change are not read again (the check goes through the session's cache).
func (s *Session) program() (*autodiff.Program, bool, error) {
	key := modelKey(s.decls)
	var sets []*data.Set
	for _, d := range s.model.Data {
		sets = append(sets, d.Set)
	}
	if s.comp.prog != nil && s.comp.key == key && slices.Equal(s.comp.sets, sets) {
		return s.comp.prog, true, nil
	}
	prog, err := autodiff.Compile(s.model)
	if err != nil {
		return nil, false, err
	}
	s.comp = compiled{key: key, sets: sets, prog: prog}
	return prog, false, nil
}

// modelKey is the text of the declarations without comments and starting
// points: two models with the same key compile to the same program (given
// the same data).
func modelKey(decls []ast.Decl) string {
	var b strings.Builder
	for _, d := range decls {
		d = bare(d)
		if v, ok := d.(*ast.VarDecl); ok {
			v.Start = nil
		}
		b.WriteString(declText(d, false))
		b.WriteByte('\n')
	}
	return b.String()
}

// bare returns a shallow copy of d without its comments.
func bare(d ast.Decl) ast.Decl {
	switch d := d.(type) {
	case *ast.DataDecl:
		c := *d
		c.Doc, c.Comment = nil, nil
		return &c
	case *ast.ParamDecl:
		c := *d
		c.Doc, c.Comment = nil, nil
		return &c
	case *ast.VarDecl:
		c := *d
		c.Doc, c.Comment = nil, nil
		return &c
	case *ast.FuncDecl:
		c := *d
		c.Doc, c.Comment = nil, nil
		return &c
	case *ast.Objective:
		c := *d
		c.Doc, c.Comment = nil, nil
		return &c
	case *ast.Constraint:
		c := *d
		c.Doc, c.Comment = nil, nil
		return &c
	}
	return d
}

// declText is the canonical text of one declaration, with its comments when
// comments is set.
func declText(d ast.Decl, comments bool) string {
	if !comments {
		d = bare(d)
	}
	var buf bytes.Buffer
	if err := format.Node(&buf, &ast.File{Decls: []ast.Decl{d}}); err != nil {
		return describe(d)
	}
	return strings.TrimRight(buf.String(), "\n")
}

// movePoint lays the current point out for the current model: a variable
// keeps its value when its declaration was not replaced and its shape is
// the same (projected onto its domain, which a parameter may have
// changed); others start at their starting point.
func (s *Session) movePoint() {
	m := s.model
	if m == nil || s.cur.m == m {
		return
	}
	x := point.Start(m)
	if old := s.cur.m; old != nil {
		for _, v := range m.Vars {
			i := slices.IndexFunc(old.Vars, func(o *check.Var) bool { return o.Name == v.Name })
			if i < 0 {
				continue
			}
			o := old.Vars[i]
			if o.Decl != v.Decl || !o.Shape.Equal(v.Shape) {
				continue
			}
			xv := v.Of(x)
			copy(xv, o.Of(s.cur.x))
			v.Domain.Project(xv)
		}
	}
	from := s.cur.from
	if from == "" {
		from = "the starting point"
	}
	s.cur = current{m: m, x: x, from: from}
}

// startPoint moves the current point to the model's starting point.
func (s *Session) startPoint() {
	if s.model == nil {
		return
	}
	s.cur = current{m: s.model, x: point.Start(s.model), from: "the starting point"}
}
