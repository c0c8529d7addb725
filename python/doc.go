// Package python holds no Go code of its own: it is the Go test that runs
// the Python package's tests (python/tests, with pytest) against a qrc
// built from this tree, so that go test ./... reaches them. The Python
// package itself is python/qrc (docs/python.md).
package python
