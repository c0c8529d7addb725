package check

// Sources maps a file name used in positions to its text, for rendering
// diagnostics with their source lines.
type Sources map[string][]byte
