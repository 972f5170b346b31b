//go:build linux || darwin || freebsd || netbsd

package digest

import (
	"fmt"
	"io/fs"
	"syscall"
)

// stampKey is a file's identity and change stamps; ok is false when the
// system does not say them.
func stampKey(fi fs.FileInfo) (key string, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return "", false
	}
	return fmt.Sprintf("v1 dev=%d ino=%d size=%d mtime=%d ctime=%d",
		st.Dev, st.Ino, st.Size, fi.ModTime().UnixNano(), ctimeNs(st)), true
}
