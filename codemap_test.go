package qrc_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCodeMap checks docs/codemap.md against the tree: its table of
// packages lists every directory that holds Go files (as go list ./...
// sees them: no testdata, no directory starting with . or _) and no other,
// and every file it names exists: a path with a slash from the module's
// root, a markdown file or link without one in docs/, a bare Go file
// name in a package's row in that package's directory (elsewhere in the
// module's root).
func TestCodeMap(t *testing.T) {
	text, err := os.ReadFile("docs/codemap.md")
	require.NoError(t, err)
	mapped, files := codeMap(string(text))

	pkgs := goPackageDirs(t, ".")
	for _, p := range pkgs {
		assert.Contains(t, mapped, p, "package %s is not in docs/codemap.md's table", p)
	}
	for _, p := range mapped {
		assert.Contains(t, pkgs, p, "docs/codemap.md's table names %s, which holds no Go package", p)
	}
	require.NotEmpty(t, files)
	for _, f := range files {
		_, err := os.Stat(f)
		assert.NoError(t, err, "docs/codemap.md names %s", f)
	}
}

var (
	codeMapRow  = regexp.MustCompile("^\\| `([^`]+)` \\|")
	codeMapFile = regexp.MustCompile(`[\w./-]*\w\.(?:go|md)\b`)
	codeMapLink = regexp.MustCompile(`\]\(([\w-]+\.md)(?:#[\w-]*)?\)`)
)

// codeMap returns the packages of the map's table (directories relative
// to the module's root, "." for the root) and the files the map names,
// relative to the module's root.
func codeMap(text string) (pkgs, files []string) {
	for line := range strings.SplitSeq(text, "\n") {
		dir := "."
		if m := codeMapRow.FindStringSubmatch(line); m != nil {
			dir = m[1]
			pkgs = append(pkgs, dir)
		}
		for _, m := range codeMapLink.FindAllStringSubmatch(line, -1) {
			files = append(files, filepath.Join("docs", m[1]))
		}
		line = codeMapLink.ReplaceAllString(line, "")
		for _, f := range codeMapFile.FindAllString(line, -1) {
			switch {
			case strings.Contains(f, "/"):
			case strings.HasSuffix(f, ".md"):
				f = filepath.Join("docs", f)
			default:
				f = filepath.Join(dir, f)
			}
			files = append(files, f)
		}
	}
	return pkgs, files
}

// goPackageDirs lists, sorted, the directories under root that hold Go
// files, as go list ./... finds packages.
func goPackageDirs(t *testing.T, root string) []string {
	var dirs []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() && path != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(name, ".go") {
			dir := filepath.Dir(path)
			if !slices.Contains(dirs, dir) {
				dirs = append(dirs, dir)
			}
		}
		return nil
	})
	require.NoError(t, err)
	slices.Sort(dirs)
	return dirs
}
