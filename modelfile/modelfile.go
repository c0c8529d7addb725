// Package modelfile is the checker's I/O: it reads a model file and the
// data files its declarations name, and hands them to package check, which
// reads no file itself. Data is the check.Loader of data files; Load and
// LoadSource use it unless the options name another loader.
package modelfile

import (
	"os"

	"github.com/qrc-lang/qrc/ast"
	"github.com/qrc-lang/qrc/check"
	"github.com/qrc-lang/qrc/data"
	"github.com/qrc-lang/qrc/diag"
	"github.com/qrc-lang/qrc/fileio"
	"github.com/qrc-lang/qrc/lang"
	"github.com/qrc-lang/qrc/limits"
)

// Data is the check.Loader that reads data files with package data's
// loaders (libsvm, csv, parquet).
type Data struct {
	// Cache, when not nil, serves data files that were loaded before and
	// did not change since (a REPL re-checks its model after every
	// statement); nil reads every data file.
	Cache *data.Cache
}

// LoadData reads the file req names with req's loader and options.
func (l Data) LoadData(req check.DataRequest) (*data.Set, error) {
	switch {
	case req.Loader == "parquet" && l.Cache != nil:
		return l.Cache.Parquet(req.Path, req.ParquetOptions())
	case req.Loader == "parquet":
		return data.LoadParquet(req.Path, req.ParquetOptions())
	case req.Loader == "libsvm" && l.Cache != nil:
		return l.Cache.LibSVM(req.Path, req.LibSVM)
	case req.Loader == "libsvm":
		return data.LoadLibSVM(req.Path, req.LibSVM)
	case l.Cache != nil:
		return l.Cache.CSV(req.Path, req.CSV)
	}
	return data.LoadCSV(req.Path, req.CSV)
}

// Load reads, parses and checks the model in path; a nil opts.Loader reads
// data files (Data{}). The returned sources hold the model's text and the
// text of every --set expression. When the file cannot be read, the error
// is returned as a diagnostic at the file.
func Load(path string, opts check.Options) (*check.Model, check.Sources, diag.List) {
	src, err := fileio.ReadFile(path, limits.MaxSourceBytes)
	if err != nil {
		return nil, nil, diag.List{{Pos: ast.Pos{Filename: path}, Msg: "cannot read model: " + errText(err)}}
	}
	return LoadSource(path, src, opts)
}

// LoadSource parses and checks the model text src read from path; a nil
// opts.Loader reads data files (Data{}).
func LoadSource(path string, src []byte, opts check.Options) (*check.Model, check.Sources, diag.List) {
	src = lang.StripBOM(src)
	sources := check.Sources{path: src}
	for _, a := range opts.Set {
		sources[check.SetSourceName(a.Name)] = []byte(a.Value)
	}
	f, errs := lang.Parse(path, src)
	if errs != nil {
		return nil, sources, errs
	}
	if opts.Loader == nil {
		opts.Loader = Data{}
	}
	m, diags := check.Check(f, opts)
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
