//go:build linux || darwin || freebsd || netbsd

package digest

import (
	"fmt"
	"io/fs"
	"syscall"
)

// Stamp is a file's identity and change stamps (device, inode, size,
// mtime and ctime in nanoseconds) as one comparable key; ok is false when
// the system does not say them. Caches keyed on it re-read a changed file.
func Stamp(fi fs.FileInfo) (key string, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return "", false
	}
	return fmt.Sprintf("v1 dev=%d ino=%d size=%d mtime=%d ctime=%d",
		st.Dev, st.Ino, st.Size, fi.ModTime().UnixNano(), ctimeNs(st)), true
}
