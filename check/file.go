package check

import (
	"os"

	"github.com/qrc-lang/qrc/ast"
	"github.com/qrc-lang/qrc/diag"
	"github.com/qrc-lang/qrc/fileio"
	"github.com/qrc-lang/qrc/lang"
	"github.com/qrc-lang/qrc/limits"
)

// Sources maps a file name used in positions to its text, for rendering
// diagnostics with their source lines.
type Sources map[string][]byte

// LoadFile reads, parses and checks the model in path. The returned sources
// hold the model's text and the text of every --set expression. When the
// file cannot be read, the error is returned as a diagnostic at the file.
func LoadFile(path string, opts Options) (*Model, Sources, diag.List) {
	src, err := fileio.ReadFile(path, limits.MaxSourceBytes)
	if err != nil {
		return nil, nil, diag.List{{Pos: ast.Pos{Filename: path}, Msg: "cannot read model: " + errText(err)}}
	}
	return LoadSource(path, src, opts)
}

// LoadSource parses and checks the model text src read from path.
func LoadSource(path string, src []byte, opts Options) (*Model, Sources, diag.List) {
	src = lang.StripBOM(src)
	sources := Sources{path: src}
	for _, a := range opts.Set {
		sources[SetSourceName(a.Name)] = []byte(a.Value)
	}
	f, errs := lang.Parse(path, src)
	if errs != nil {
		return nil, sources, errs
	}
	m, diags := Check(f, opts)
	return m, sources, diags
}

// errText is an OS error without the "open path:" prefix the caller already
// shows.
func errText(err error) string {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err.Error()
	}
	return err.Error()
}
