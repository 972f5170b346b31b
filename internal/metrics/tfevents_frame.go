package metrics

import (
	"encoding/binary"
	"hash/crc32"
)

// tfFrameBatch is how many records one call of frame checks at most.
const tfFrameBatch = 256

// frameGeneric is frame (tfevents_frame_amd64.go) in Go: it checks the
// whole records at the front of b, one after another, and stores in ends
// the offset in b where each one ends. It stops before the first record
// that starts at or past starts, whose data is longer than maxLen, that
// does not lie whole in b, or that fails a CRC check, and returns how
// many records it checked. The caller handles the record it stopped at
// (and says what is wrong with it).
func (t *tfCRC8) frameGeneric(b []byte, starts, maxLen int, ends *[tfFrameBatch]uint32) int {
	tab := crc32.MakeTable(crc32.Castagnoli)
	p, n := 0, 0
	for n < len(ends) && p < starts && len(b)-p >= tfHeaderLen+tfFooterLen {
		length := binary.LittleEndian.Uint64(b[p:])
		if length > uint64(len(b)-p-tfHeaderLen-tfFooterLen) || length > uint64(maxLen) {
			break
		}
		if tfMask(t.sum8(b[p:])) != binary.LittleEndian.Uint32(b[p+8:]) {
			break
		}
		data := b[p+tfHeaderLen : p+tfHeaderLen+int(length)]
		foot := p + tfHeaderLen + int(length)
		if tfMask(crc32.Checksum(data, tab)) != binary.LittleEndian.Uint32(b[foot:]) {
			break
		}
		p = foot + tfFooterLen
		ends[n] = uint32(p)
		n++
	}
	return n
}
