//go:build linux

package data

import (
	"errors"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTruncatedMappedFile checks that a mapped file truncated under the
// parser is an error, not a crash (SIGBUS).
func TestTruncatedMappedFile(t *testing.T) {
	path := writeFile(t, "t.svm", string(make([]byte, 3*os.Getpagesize())))
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	data, unmap, ok := mapFile(f, 3*int64(os.Getpagesize()))
	require.True(t, ok)
	defer unmap()
	require.NoError(t, os.Truncate(path, 0))
	res := guard(func(c chunk) error {
		for _, b := range c.buf {
			sink += int(b)
		}
		return nil
	}, func(err error) error { return err }, chunk{buf: data})
	var fe faultError
	assert.True(t, errors.As(res, &fe), "got %v", res)
	assert.Equal(t, "the file changed while it was read", fe.Error())
}

var sink int
