package data

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"sync"
)

// MaxLine is the longest line (for CSV, the longest record) a loader
// accepts, in bytes. A longer line is reported with its line number instead
// of being buffered without bound (a file with no newline, such as a copy of
// /dev/zero, would otherwise be read into memory whole).
const MaxLine = 16 << 20

// MemoryEnv names the environment variable that overrides the memory a
// loaded data set may take; see [MemoryLimit].
const MemoryEnv = "QRC_DATA_MEMORY"

// MemoryFraction is the share of the machine's memory a data set may take by
// default; see [MemoryLimit].
const MemoryFraction = 0.5

// fallbackMemory is the limit when the machine's memory cannot be read.
const fallbackMemory = 4 << 30

// MemoryLimit returns the number of bytes one loaded data set may take, and
// a short description of where the number comes from for messages.
//
// It is MemoryFraction (half) of the machine's memory — the smaller of the
// physical memory (/proc/meminfo) and a cgroup memory limit — or 4 GiB when
// neither can be read. The environment variable QRC_DATA_MEMORY overrides it
// with a byte count such as "800MB", "2GiB" or "1e9" (suffixes K, M, G, T
// with or without B are powers of 1024 when written KiB, MiB, ... and of 1000
// otherwise), or "off" for no limit.
//
// An invalid QRC_DATA_MEMORY is ignored, and the description says so.
func MemoryLimit() (int64, string) {
	ignored := ""
	if v, ok := os.LookupEnv(MemoryEnv); ok {
		n, err := ParseBytes(v)
		if err == nil {
			return n, MemoryEnv + "=" + v
		}
		ignored = fmt.Sprintf("; %s=%s is not a byte count such as 800MB, 2GiB or off, and was ignored", MemoryEnv, quoteString(v))
	}
	memOnce.Do(func() { machineMem = readMachineMemory() })
	limit, desc := int64(fallbackMemory), "the default when the machine's memory is unknown; set "+MemoryEnv+" to change it"+ignored
	if machineMem > 0 {
		limit, desc = int64(float64(machineMem)*MemoryFraction), fmt.Sprintf("half of the machine's %s; set %s to change it%s", FormatBytes(machineMem), MemoryEnv, ignored)
	}
	// an address-space limit (ulimit -v) bounds what can be allocated
	// whatever the machine has: half of what it leaves beyond
	// addressReserve, so that a set too large is refused rather than
	// ending in the Go runtime's fatal "out of memory"
	if as := addressSpaceLimit(); as > 0 {
		usable := max(as-addressReserve, 64<<20)
		if half := int64(float64(usable) * MemoryFraction); half < limit {
			limit, desc = half, fmt.Sprintf("half of what the address-space limit of %s (ulimit -v) leaves beyond %s for the program itself; set %s to change it%s",
				FormatBytes(as), FormatBytes(addressReserve), MemoryEnv, ignored)
		}
	}
	return limit, desc
}

// addressReserve is the address space MemoryLimit leaves to the program
// itself (the Go runtime's arenas, thread stacks, the C library's malloc
// arenas when cgo is linked: about 0.6 GB, docs/reliability.md) under an
// address-space limit.
const addressReserve = 1 << 30

var (
	memOnce    sync.Once
	machineMem int64
)

// readMachineMemory returns the smaller of MemTotal and the cgroup v2 or v1
// memory limit, or 0 when neither is readable.
func readMachineMemory() int64 {
	var total int64
	if f, err := os.Open("/proc/meminfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
				kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
				if err == nil && kb > 0 {
					total = kb << 10
				}
				break
			}
		}
		f.Close()
	}
	for _, p := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		if err == nil && n > 0 && (total == 0 || n < total) {
			total = n
		}
	}
	return total
}

// ParseBytes parses a byte count such as "512MiB", "2GB", "1e9" or "off"
// (no limit, returned as math.MaxInt64).
func ParseBytes(s string) (int64, error) {
	t := strings.TrimSpace(s)
	if strings.EqualFold(t, "off") {
		return math.MaxInt64, nil
	}
	mult := 1.0
	units := []struct {
		suf string
		m   float64
	}{
		{"KIB", 1 << 10}, {"MIB", 1 << 20}, {"GIB", 1 << 30}, {"TIB", 1 << 40},
		{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12},
		{"K", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}, {"B", 1},
	}
	up := strings.ToUpper(t)
	for _, u := range units {
		if strings.HasSuffix(up, u.suf) {
			mult, t = u.m, strings.TrimSpace(t[:len(t)-len(u.suf)])
			break
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || !(v > 0) || v*mult > math.MaxInt64/2 {
		return 0, fmt.Errorf("invalid byte count %q (want e.g. 800MB, 2GiB or off)", s)
	}
	return int64(v * mult), nil
}

// FormatBytes writes n in binary units with three significant digits, such
// as "763 MiB" or "1.50 GiB".
func FormatBytes(n int64) string {
	if n < 1<<10 {
		return fmt.Sprintf("%d bytes", n)
	}
	v, unit := float64(n), ""
	for _, u := range []string{"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"} {
		v, unit = v/1024, u
		if v < 1024 {
			break
		}
	}
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f %s", v, unit)
	case v >= 10:
		return fmt.Sprintf("%.1f %s", v, unit)
	}
	return fmt.Sprintf("%.2f %s", v, unit)
}

// budget is the memory limit of one load.
type budget struct {
	limit int64
	why   string
}

func newBudget(override int64) budget {
	if override > 0 {
		return budget{override, "the loader's MaxMemory option"}
	}
	l, why := MemoryLimit()
	return budget{l, why}
}

// exceeded returns the message for a set that needs need bytes, or "" when
// need fits. what describes the storage ("a dense 3 × 4 matrix").
func (b budget) exceeded(need int64, what string) string {
	if need <= b.limit {
		return ""
	}
	return fmt.Sprintf("%s needs about %s, more than the %s a data set may take (%s)", what, FormatBytes(need), FormatBytes(b.limit), b.why)
}
