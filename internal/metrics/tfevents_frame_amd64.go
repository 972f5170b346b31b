//go:build !purego

package metrics

import "golang.org/x/sys/cpu"

// frame is frameGeneric, with both CRCs of a record computed by the
// SSE4.2 CRC32 instruction where the processor has it: a record's 8-byte
// length is one instruction, and no call is made per record.
func (t *tfCRC8) frame(b []byte, starts, maxLen int, ends *[tfFrameBatch]uint32) int {
	if cpu.X86.HasSSE42 {
		return tfFrameSSE42(b, starts, maxLen, ends)
	}
	return t.frameGeneric(b, starts, maxLen, ends)
}

//go:noescape
func tfFrameSSE42(b []byte, starts, maxLen int, ends *[tfFrameBatch]uint32) int
