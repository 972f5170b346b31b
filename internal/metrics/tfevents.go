package metrics

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"sort"
	"strings"
)

// TensorBoard event files are TFRecord streams of Event protobufs:
//
//	u64 length (LE) | u32 masked CRC-32C of the length | length bytes | u32 masked CRC-32C of the bytes
//
// A sink that can be rewound (inspect's) gets the file read in one pass
// (see onePass in tfevents_pass.go) whenever that gives what the two
// passes below give; other sinks, and files where one pass is not enough,
// are read in two passes:
//
//  1. Scan pass: frames every record and looks only at the top level of
//     each Event (its step, whether it holds a summary, whether it is a
//     SessionLog START), noting the restarts and cutting the file into
//     chunks of about 256 KiB at record boundaries. A large file is
//     scanned in parts, in parallel (see scanPass).
//  2. Decode pass: workers, one per CPU up to 8, each take a chunk, check
//     the CRCs of its records and decode them into a batch of values; the
//     calling goroutine takes the batches in file order and delivers the
//     points, so the sink sees exactly what a sequential read would give
//     it, from one goroutine. Records larger than a window form chunks of
//     their own, read by the calling goroutine.
//
// A record that fails a CRC check, or does not decode, stops the read at
// that record: the points of the records before it have been delivered,
// none after. When the scan pass fails (at an end of file it cannot
// accept, or a length gone wrong), the records before the failure are
// checked again so that the error names the first bad record.
//
// Restarts follow TensorBoard's purge rule: a SessionLog START at step S
// discards every point written before it whose step is >= S. Two passes
// make this exact without holding points back: the scan pass finds the
// STARTs, keeps those that discard something (some summary before has a
// step >= S), and of those only the ones whose step is below that of
// every later START (a later, lower START discards a superset). What
// remains is a list with rising offsets and rising steps, so a point at
// file offset o survives exactly when its step is below the step of the
// first kept START after o. At most tfMaxRestarts STARTs with rising steps
// are held while scanning; a file with more is refused.
//
// Memory: the windows, worker buffers and batches (about 16 MiB with 8
// workers), the largest summary record, the restart list, one entry per
// distinct tag and 24 bytes per chunk; past tfMaxChunks chunks, chunks
// double in size. The one pass holds no chunk list: a window and a batch
// per worker and per chunk read ahead, and the largest summary record.
//
// Ends of file:
//   - an empty file is an error;
//   - 1..11 bytes after the last complete record are a length header
//     still being written: a truncated tail, as below;
//   - a length header with a bad CRC is an error, wherever it is;
//   - a length header with a good CRC whose record runs past the end of
//     the file is a truncated tail: the points before it are kept and a
//     Note says where reading stopped (at byte 0 when not even the first
//     record is complete).
//
// Files with file_version below 2 get the same START rule (TensorBoard
// would instead purge on out-of-order steps); restarts are handled within
// one file only.

const (
	tfWindow       = 1 << 20   // read window; records up to this size are decoded in place
	tfWindows      = 4         // scan-pass windows: read ahead, being framed
	tfChunkSize    = 256 << 10 // the decode pass hands out records in chunks of about this size
	tfMaxChunks    = 1 << 16   // chunks kept; past this, adjacent chunks merge
	tfMaxWorkers   = 8         // decode workers, and parts scanned in parallel
	tfMinScanPart  = 8 << 20   // smallest part of a file scanned on its own
	tfScanWindow   = 256 << 10 // read window of a part
	tfMaxRecord    = 256 << 20 // largest summary record decoded (larger non-summary records are streamed past)
	tfMaxRestarts  = 1 << 16   // STARTs with rising steps held while scanning
	tfHeaderLen    = 12
	tfFooterLen    = 4
	tfMaskDelta    = 0xa282ead8
	tfSessionStart = 1 // SessionLog.START
)

// TensorFlow DataType values the scalar decoding understands.
const (
	tfDTFloat    = 1
	tfDTDouble   = 2
	tfDTInt32    = 3
	tfDTUint8    = 4
	tfDTInt16    = 5
	tfDTInt8     = 6
	tfDTInt64    = 9
	tfDTBFloat16 = 14
	tfDTUint16   = 17
	tfDTHalf     = 19
	tfDTUint32   = 22
	tfDTUint64   = 23
)

func tfMask(crc uint32) uint32 { return (crc>>15 | crc<<17) + tfMaskDelta }

// looksLikeTFRecord reports whether head starts with a TFRecord frame: a
// length whose masked CRC-32C follows it.
func looksLikeTFRecord(head []byte) bool {
	if len(head) < tfHeaderLen {
		return false
	}
	tab := crc32.MakeTable(crc32.Castagnoli)
	return tfMask(crc32.Checksum(head[:8], tab)) == binary.LittleEndian.Uint32(head[8:12])
}

func readTFEvents(path string, sink Sink) (Info, error) {
	f, size, err := binOpen(path, sink)
	if err != nil {
		return Info{Format: TFEvents}, err
	}
	defer f.Close()
	return readTFEventsFrom(path, f.r, size, sink)
}

// readTFEventsFrom reads an event file of size bytes from r: in one pass
// when the sink can be rewound, else (and when one pass is not enough) in
// two.
func readTFEventsFrom(path string, r io.ReaderAt, size int64, sink Sink) (Info, error) {
	return newTFReadState(path, r, size).read(sink, Info{Format: TFEvents})
}

func newTFReadState(path string, r io.ReaderAt, size int64) *tfReadState {
	return &tfReadState{path: path, r: r, size: size, win: tfWindowSize(size), chunk: tfChunkSize,
		crc8: newTFCRC8(), tab: crc32.MakeTable(crc32.Castagnoli)}
}

func (st *tfReadState) read(sink Sink, info Info) (Info, error) {
	reg := &tfRegistry{tags: make(map[string]*tfTag)}
	if rw, ok := sink.(Rewinder); ok && st.size > 0 {
		dv := newTFDelivery(sink, st.path)
		end, trunc, fallBack, err := st.onePass(reg, dv)
		if !fallBack {
			return tfInfo(info, dv, end, trunc, err)
		}
		rw.Rewind()
		reg.forgetPlugins()
	}
	scan, err := st.scanPass()
	if err != nil {
		return info, err
	}
	dv := newTFDelivery(sink, st.path)
	err = st.decodePass(scan, reg, dv)
	return tfInfo(info, dv, scan.end, scan.trunc, err)
}

// tfInfo completes info with what a read delivered, and where it ended.
func tfInfo(info Info, dv *tfDelivery, end int64, trunc bool, err error) (Info, error) {
	info.Points = dv.points
	if err != nil {
		return info, err
	}
	if len(dv.skipped) > 0 {
		info.Notes = append(info.Notes, tfSkipNote(dv.skipped))
	}
	if dv.dropped > 0 {
		info.Notes = append(info.Notes, fmt.Sprintf("dropped %d points written before a restart (SessionLog START) with a step at or after the restart's step, as TensorBoard does", dv.dropped))
	}
	if trunc {
		info.Notes = append(info.Notes, fmt.Sprintf("stopped at a truncated record at byte %d (the writer was still running or crashed)", end))
		info.TruncatedAt = end
	}
	return info, nil
}

// tfSkipNote says, in one sentence, which values were not scalars.
func tfSkipNote(skipped map[string]int64) string {
	kinds := make([]string, 0, len(skipped))
	var total int64
	for k, n := range skipped {
		kinds = append(kinds, k)
		total += n
	}
	sort.Strings(kinds)
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = fmt.Sprintf("%s: %d", k, skipped[k])
	}
	return fmt.Sprintf("skipped %d non-scalar summary values (%s)", total, strings.Join(parts, ", "))
}
