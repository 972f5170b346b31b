package probe

import "fmt"

// A Space is the headroom of the filesystem holding Path. Free counts what
// an unprivileged process may still write, as df's "Avail" does.
type Space struct {
	Path  string
	Free  uint64 // bytes
	Total uint64 // bytes
}

// FreeFraction is Free/Total, 0 for a filesystem reporting no size.
func (s Space) FreeFraction() float64 {
	if s.Total == 0 {
		return 0
	}
	return float64(s.Free) / float64(s.Total)
}

func (s Space) String() string {
	return fmt.Sprintf("%s: %s free of %s (%.0f%%)", s.Path, Bytes(s.Free), Bytes(s.Total), 100*s.FreeFraction())
}

// ShmPath is where POSIX shared memory lives; NCCL, Ray and DataLoader
// workers fail in odd ways when it fills up.
const ShmPath = "/dev/shm"

// Disk reports the headroom of the filesystem holding path.
func Disk(h Host, path string) (Space, error) {
	free, total, err := h.Statfs(path)
	if err != nil {
		return Space{Path: path}, fmt.Errorf("disk space of %s: %w", path, err)
	}
	// Root may write into the reserved blocks, so free can never
	// sensibly exceed the size.
	return Space{Path: path, Free: min(free, total), Total: total}, nil
}

// Shm reports the headroom of /dev/shm.
func Shm(h Host) (Space, error) { return Disk(h, ShmPath) }

// Bytes says n in binary units: "1.5 GiB".
func Bytes(n uint64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	v, suffix := float64(n), ""
	for _, s := range []string{"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"} {
		v, suffix = v/unit, s
		if v < unit {
			break
		}
	}
	return fmt.Sprintf("%.1f %s", v, suffix)
}
