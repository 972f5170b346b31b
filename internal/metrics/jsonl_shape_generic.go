//go:build !amd64 || purego

package metrics

func shapeScan(l []byte, i int, gaps []byte, offs []int32, terms []byte, pos []int32, k int) (int, int, bool) {
	return shapeScanGeneric(l, i, gaps, offs, terms, pos, k)
}
