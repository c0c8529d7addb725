package main

import (
	"io"

	"github.com/qrc-lang/qrc/internal/jsonenc"
)

// writeJSON writes v as indented JSON, a number that is not finite as the
// string "NaN", "Infinity" or "-Infinity" (docs/cli.md).
func writeJSON(w io.Writer, v any) error { return jsonenc.Write(w, v) }
