package check

import (
	"errors"

	"github.com/qrc-lang/qrc/ast"
	"github.com/qrc-lang/qrc/data"
)

// A Loader gives the checker the data set a model's data declaration
// names. The checker does no I/O: it checks the declaration (the loader's
// name and options, --data overrides, the columns the model uses), asks
// the Loader for the set, and reports the Loader's error at the
// declaration, pointing at the option a *data.Error names. go/types'
// Config.Importer is the model: the checker asks, the caller decides where
// the answer comes from (files, a cache, memory, a test's fixture).
type Loader interface {
	// LoadData returns the set req asks for, or an error saying why it
	// cannot; the message follows "cannot load data set "NAME": ". A
	// returned set is not changed by the checker except through
	// data.Set.Dense (a sparse set the model uses densely).
	LoadData(req DataRequest) (*data.Set, error)
}

// A DataRequest is one data declaration as the checker hands it to a
// Loader, its options checked.
type DataRequest struct {
	// Decl is the declaration asked for; its position is where the
	// Loader's error is reported.
	Decl *ast.DataDecl
	// Name is the data set's name.
	Name string
	// Loader is how the file is read: "libsvm", "csv" or "parquet". With
	// --data it follows the file's extension (a ".parquet" file given for
	// a csv set is read as Parquet, and the other way round).
	Loader string
	// Path is the file: the declaration's path joined to Options.Dir when
	// relative, or the --data path as given when Override.
	Path     string
	Override bool
	// LibSVM holds libsvm's options; CSV holds csv's, and of them Label,
	// Drop, Missing and Columns are also parquet's. CSV.Columns, when not
	// nil, lists the columns the model names (Options.UsedColumns): the
	// others' values may be left nil.
	LibSVM data.LibSVMOptions
	CSV    data.CSVOptions
}

// ParquetOptions are the request's options for the parquet loader.
func (r DataRequest) ParquetOptions() data.ParquetOptions {
	return data.ParquetOptions{Label: r.CSV.Label, Drop: r.CSV.Drop, Missing: r.CSV.Missing, Columns: r.CSV.Columns}
}

// errNoLoader is reported for a data declaration checked without a Loader.
var errNoLoader = errors.New("no data loader is configured (check.Options.Loader is nil)")
