package metrics

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// tfFrameSeeds are record streams to frame: real event files and records
// of every length class the kernel's tail handles (0..7 bytes past a
// multiple of 8).
func tfFrameSeeds(t testing.TB) [][]byte {
	var seeds [][]byte
	dir := filepath.Join("..", "..", "..", "shared", "metrics-samples")
	for _, name := range []string{
		"tfevents/tensorboa.rs/events.out.tfevents.1661684667.applepie4",
		"tfevents/torch-writer/new_style_float/events.out.tfevents.1795952470.vm.415.1",
		"sb3/formalRL/events.out.tfevents.1693326834.harryting-OMEN.273496.0",
	} {
		if b, err := os.ReadFile(filepath.Join(dir, name)); err == nil {
			seeds = append(seeds, b)
		}
	}
	var b []byte
	for n := range 40 {
		data := make([]byte, n)
		for i := range data {
			data[i] = byte(n*31 + i)
		}
		b = append(b, tfFramed(data)...)
	}
	return append(seeds, b)
}

// tfFrameAll runs frame and frameGeneric over b as a reader does, batch
// after batch, and fails where they disagree. It returns the record ends.
func tfFrameAll(t *testing.T, crc8 *tfCRC8, b []byte, starts, maxLen int) []uint32 {
	t.Helper()
	var all []uint32
	var ends, gends [tfFrameBatch]uint32
	for p := 0; ; {
		n := crc8.frame(b[p:], starts-p, maxLen, &ends)
		g := crc8.frameGeneric(b[p:], starts-p, maxLen, &gends)
		if !cmp.Equal(ends[:n], gends[:g]) {
			t.Fatalf("at byte %d: frame checked %d records %v, frameGeneric %d %v", p, n, ends[:n], g, gends[:g])
		}
		if n == 0 {
			return all
		}
		for _, e := range ends[:n] {
			all = append(all, uint32(p)+e)
		}
		p += int(ends[n-1])
	}
}

// The kernel frames what the Go version frames, on real files, with every
// byte of them in turn corrupted, and cut at every length.
func TestTFFrameAgrees(t *testing.T) {
	crc8 := newTFCRC8()
	for _, seed := range tfFrameSeeds(t) {
		ends := tfFrameAll(t, crc8, seed, len(seed), tfWindow)
		if len(ends) == 0 || int(ends[len(ends)-1]) != len(seed) {
			t.Fatalf("a %d-byte file of whole records framed to %v", len(seed), ends)
		}
		limit := min(len(seed), 4096)
		b := append([]byte{}, seed[:limit]...)
		for i := range limit {
			b[i] ^= 0x10
			tfFrameAll(t, crc8, b, limit, tfWindow)
			b[i] ^= 0x10
			tfFrameAll(t, crc8, b[:i], i, tfWindow)
			tfFrameAll(t, crc8, b, i, tfWindow)
			tfFrameAll(t, crc8, b, limit, i)
		}
	}
}

func FuzzTFFrame(f *testing.F) {
	for _, seed := range tfFrameSeeds(f) {
		f.Add(seed, uint32(len(seed)), uint32(tfWindow))
		f.Add(seed, uint32(len(seed)/2), uint32(30))
	}
	crc8 := newTFCRC8()
	f.Fuzz(func(t *testing.T, b []byte, starts, maxLen uint32) {
		tfFrameAll(t, crc8, b, int(starts), int(maxLen))
	})
}
