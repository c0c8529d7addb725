package repl

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/qrc-lang/qrc/ast"
	"github.com/qrc-lang/qrc/fileio"
	"github.com/qrc-lang/qrc/format"
	"github.com/qrc-lang/qrc/lang"
	"github.com/qrc-lang/qrc/limits"
)

// load adds the declarations of the model file path to the session.
func (s *Session) load(path string, st Statement) bool {
	src, err := fileio.ReadFile(path, limits.MaxSourceBytes)
	if err != nil {
		if pe, ok := err.(*os.PathError); ok {
			err = pe.Err
		}
		s.fail("%s: cannot read model: %v", path, err)
		return false
	}
	s.sources[path] = src
	f, errs := lang.Parse(path, src)
	if errs != nil {
		s.failed = true
		s.printDiags(errs)
		return false
	}
	decls := flatten(f)
	relocate(decls, filepath.Dir(path))
	st.File = path
	return s.change(decls, nil, st)
}

func (s *Session) saveCmd(arg string, _ Statement, _ int) {
	if arg == "" {
		s.fail(":save FILE: which file?")
		return
	}
	path := unquote(arg)
	if len(s.decls) == 0 {
		s.fail(":save: the model is empty; there is nothing to save")
		return
	}
	if dir := filepath.Dir(path); dir != "." {
		if info, err := os.Stat(dir); err != nil {
			s.fail(":save %s: the folder %s does not exist; create it first (or save elsewhere)", arg, dir)
			return
		} else if !info.IsDir() {
			s.fail(":save %s: %s is not a folder", arg, dir)
			return
		}
	}
	text, err := s.ModelText(path)
	if err == nil {
		// the session's model files may be replaced by the model they
		// became; its data files, and any other file it read, may not
		err = fileio.WriteFile(path, text, 0o644, slices.Collect(maps.Keys(s.sources))...)
	}
	if err != nil {
		if pe, ok := err.(*os.PathError); ok {
			err = pe.Err // the path is in the message already
		}
		s.fail(":save %s: cannot write it: %v", arg, err)
		return
	}
	fmt.Fprintf(s.out, "wrote %s\n", path)
	if s.model == nil {
		fmt.Fprintln(s.errw, "note: the model has errors (:check lists them); so will the file")
	}
}

// ModelText returns the session's model as the text of a .qrc file to be
// written at path, in canonical layout: data sets, parameters, variables,
// functions, the objective, then the constraints in a subject to block,
// each group in the order of the session; comments are kept. Data paths
// are made relative to path's directory.
func (s *Session) ModelText(path string) ([]byte, error) {
	dir, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return nil, err
	}
	order := []string{"data set", "parameter", "variable", "function", "objective", "constraint"}
	var b strings.Builder
	for _, kind := range order {
		group := slices.DeleteFunc(slices.Clone(s.decls), func(d ast.Decl) bool { k, _ := kindName(d); return k != kind })
		if len(group) == 0 {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		if kind == "constraint" {
			b.WriteString("subject to\n")
		}
		for _, d := range group {
			if dd, ok := d.(*ast.DataDecl); ok {
				d = rebase(dd, dir)
			}
			t := declText(d, true)
			if kind == "constraint" {
				t = "    " + strings.ReplaceAll(t, "\n", "\n    ")
			}
			b.WriteString(t + "\n")
		}
	}
	out, errs := format.Source(path, []byte(b.String()))
	if errs != nil {
		return nil, fmt.Errorf("internal error: the saved model does not parse: %v", errs)
	}
	return out, nil
}

// rebase returns d with its data path (relative to the working directory)
// made relative to dir.
func rebase(d *ast.DataDecl, dir string) *ast.DataDecl {
	call, ok := d.Source.(*ast.Call)
	if !ok || len(call.Args) == 0 || call.Args[0].Name != nil {
		return d
	}
	str, ok := call.Args[0].Value.(*ast.String)
	if !ok {
		return d
	}
	p := str.Value
	if abs, err := filepath.Abs(p); err == nil {
		if rel, err := filepath.Rel(dir, abs); err == nil {
			p = filepath.ToSlash(rel)
		} else {
			p = abs
		}
	}
	nd, nc := *d, *call
	nc.Args = slices.Clone(call.Args)
	nc.Args[0] = &ast.Arg{Value: &ast.String{ValuePos: str.ValuePos, Lit: strconv.Quote(p), Value: p}}
	nd.Source = &nc
	return &nd
}
