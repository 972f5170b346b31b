//go:build !amd64 || purego

package metrics

func (t *tfCRC8) frame(b []byte, starts, maxLen int, ends *[tfFrameBatch]uint32) int {
	return t.frameGeneric(b, starts, maxLen, ends)
}
