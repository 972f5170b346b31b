//go:build !amd64 || purego

package metrics

func classes64(b *[64]byte) (d, c, m, other uint64) { return classes64Generic(b) }
