//go:build !purego

package metrics

// classes64 is classes64Generic in SSE2, which every amd64 processor has:
// 16 bytes a compare.
//
//go:noescape
func classes64(b *[64]byte) (d, c, m, other uint64)
