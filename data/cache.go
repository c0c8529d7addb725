package data

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Cache keeps loaded data sets so that a program that loads the same file
// again — the REPL re-checks its model after every statement — reads it only
// when it changed. A file is read again when its size or modification time
// differs from when it was cached, or when it is loaded with other options.
// Failed loads are not cached. The sets a Cache returns are shared between
// callers and must not be modified. A Cache is safe for concurrent use; the
// zero Cache is ready to use.
type Cache struct {
	mu      sync.Mutex
	entries map[string]cacheEntry
	reads   int
}

type cacheEntry struct {
	size  int64
	mtime time.Time
	set   *Set
}

// LibSVM is [LoadLibSVM] through the cache.
func (c *Cache) LibSVM(path string, opt LibSVMOptions) (*Set, error) {
	return c.load(fmt.Sprintf("libsvm %d %d", opt.Features, opt.MaxMemory), path, func() (*Set, error) { return LoadLibSVM(path, opt) })
}

// CSV is [LoadCSV] through the cache.
func (c *Cache) CSV(path string, opt CSVOptions) (*Set, error) {
	key := fmt.Sprintf("csv %q %q %q %v %q %d %v %q", opt.Label, strings.Join(opt.Drop, "\x00"), opt.Sep, opt.NoHeader, opt.Missing, opt.MaxMemory,
		opt.Columns == nil, strings.Join(opt.Columns, "\x00"))
	return c.load(key, path, func() (*Set, error) { return LoadCSV(path, opt) })
}

// Parquet is [LoadParquet] through the cache.
func (c *Cache) Parquet(path string, opt ParquetOptions) (*Set, error) {
	key := fmt.Sprintf("parquet %q %q %q %d %v %q", opt.Label, strings.Join(opt.Drop, "\x00"), opt.Missing, opt.MaxMemory,
		opt.Columns == nil, strings.Join(opt.Columns, "\x00"))
	return c.load(key, path, func() (*Set, error) { return LoadParquet(path, opt) })
}

// Reads returns how many files the cache has read (loads it could not serve
// from memory), for tests and measurements.
func (c *Cache) Reads() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.reads
}

func (c *Cache) load(opts, path string, load func() (*Set, error)) (*Set, error) {
	if _, sharded, _ := Shards(path); sharded {
		return load() // a directory's or glob's shards are not cached
	}
	st, err := os.Stat(path)
	if err != nil {
		return load() // reports the error in the loader's words
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	key := opts + "\x00" + abs
	c.mu.Lock()
	e, ok := c.entries[key]
	c.mu.Unlock()
	if ok && e.size == st.Size() && e.mtime.Equal(st.ModTime()) {
		return e.set, nil
	}
	s, err := load()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reads++
	if err != nil {
		delete(c.entries, key)
		return nil, err
	}
	if c.entries == nil {
		c.entries = map[string]cacheEntry{}
	}
	c.entries[key] = cacheEntry{size: st.Size(), mtime: st.ModTime(), set: s}
	return s, nil
}
