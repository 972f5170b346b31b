//go:build !purego

package metrics

// shapeScan is shapeScanGeneric in SSE2, which every amd64 processor has:
// a gap is compared and a number classified 16 bytes at a time, with no
// call per number. Its callers keep len(offs) = len(terms)+1, len(pos) =
// 2×len(terms), and 16 bytes of gaps after its last gap.
//
//go:noescape
func shapeScan(l []byte, i int, gaps []byte, offs []int32, terms []byte, pos []int32, k int) (int, int, bool)
