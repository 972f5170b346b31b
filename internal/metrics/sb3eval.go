package metrics

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"
)

// evaluations.npz is what Stable-Baselines3's EvalCallback saves after
// each evaluation (stable_baselines3/common/callbacks.py): np.savez of
//
//	timesteps  (n,)    int:   the training step of each evaluation
//	results    (n, k)  float: each evaluation's k episode returns
//	ep_lengths (n, k)  int:   their lengths
//	successes  (n, k)  bool:  whether each succeeded, when the env says so
//
// where k is n_eval_episodes. An .npz is a zip archive (stored, or
// deflated by savez_compressed) of one .npy file per array, named after
// it (see npy.go). The file is rewritten whole at each evaluation: it
// has no end record, and a run that stopped early leaves a complete file
// with fewer evaluations, which the contract's budget.steps_per_run
// catches. Whether the evaluation was deterministic is not saved.

// Tags an evaluations.npz gives, per evaluation, at its timestep.
const (
	sb3MeanReward     = "eval/mean_reward"     // mean of the k returns, as EvalCallback logs it
	sb3EpisodeReward  = "eval/episode_reward"  // each return: k points at the step
	sb3MeanEpLength   = "eval/mean_ep_length"  // mean of the k lengths
	sb3EpisodeLength  = "eval/episode_length"  // each length
	sb3SuccessRate    = "eval/success_rate"    // mean of the successes
	sb3EpisodeSuccess = "eval/episode_success" // each success, 0 or 1
	sb3Episodes       = "eval/episodes"        // k, the episodes each evaluation ran
)

// maxNPYMember bounds one array's bytes: an evaluation log is small, and
// a zip's declared sizes are not to be trusted with memory.
const maxNPYMember = 256 << 20

// readSB3Eval reads an EvalCallback evaluations.npz.
func readSB3Eval(path string, sink Sink) (Info, error) {
	bf, size, err := binOpen(path, sink)
	if err != nil {
		return Info{}, err
	}
	defer bf.Close()
	return readNPZ(path, bf.r, size, sink)
}

// readNPZ reads an evaluations.npz's size bytes from r; path names it.
func readNPZ(path string, r io.ReaderAt, size int64, sink Sink) (Info, error) {
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return Info{}, &Error{Path: path, Offset: -1, Msg: "not a complete .npz (zip) archive: " + err.Error() +
			" (an archive is readable only once its writer has finished it)"}
	}
	if where := zipUnaccounted(r, size, zr); where != "" {
		return Info{}, &Error{Path: path, Offset: -1, Msg: "bytes the .npz archive does not account for: " + where +
			"; numpy writes none, and bytes not read are no evidence"}
	}
	arrays := map[string]npyArray{}
	var skipped []string
	for _, f := range zr.File {
		name, ok := strings.CutSuffix(f.Name, ".npy")
		if !ok || strings.Contains(name, "/") {
			return Info{}, &Error{Path: path, Offset: -1, Msg: fmt.Sprintf("member %q is no .npy array: not a numpy .npz", f.Name)}
		}
		if _, dup := arrays[name]; dup {
			return Info{}, &Error{Path: path, Offset: -1, Msg: fmt.Sprintf("member %q appears twice: two arrays under one name", f.Name)}
		}
		switch name {
		case "timesteps", "results", "ep_lengths", "successes":
		default:
			skipped = append(skipped, name)
			arrays[name] = npyArray{}
			continue
		}
		a, err := readNPYMember(path, f)
		if err != nil {
			return Info{}, err
		}
		arrays[name] = a
	}
	for _, k := range []string{"timesteps", "results"} {
		if _, ok := arrays[k]; !ok {
			return Info{}, &Error{Path: path, Offset: -1, Msg: fmt.Sprintf("no %s array: not an EvalCallback evaluations.npz (timesteps, results, ep_lengths)", k)}
		}
	}
	ev, err := sb3Shapes(path, arrays)
	if err != nil {
		return Info{}, err
	}
	info := Info{Notes: []string{fmt.Sprintf("%d evaluations of %d episodes each; steps come from timesteps.", ev.n, ev.k)}}
	if len(skipped) > 0 {
		sort.Strings(skipped)
		info.Notes = append(info.Notes, "Skipped the arrays "+strings.Join(skipped, ", ")+": not EvalCallback's.")
	}
	info.Points, err = ev.deliver(sink)
	return info, err
}

// readNPYMember decodes one array of the archive; its errors name the
// member and, for a stored member, the byte of the file.
func readNPYMember(path string, f *zip.File) (npyArray, error) {
	where := func(off int64, msg string) error {
		e := &Error{Path: path, Offset: -1, Msg: fmt.Sprintf("%s, byte %d of the array: %s", f.Name, off, msg)}
		if f.Method == zip.Store {
			if d, err := f.DataOffset(); err == nil {
				e.Offset, e.Msg = d+off, fmt.Sprintf("%s: %s", f.Name, msg)
			}
		}
		return e
	}
	if f.UncompressedSize64 > maxNPYMember {
		return npyArray{}, where(0, fmt.Sprintf("an array of %d bytes, over the %d MiB an evaluation log may hold", f.UncompressedSize64, maxNPYMember>>20))
	}
	rc, err := f.Open()
	if err != nil {
		return npyArray{}, where(0, err.Error())
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, maxNPYMember+1))
	if err != nil {
		if errors.Is(err, zip.ErrChecksum) {
			return npyArray{}, where(0, "its CRC does not match its bytes: the archive is corrupt")
		}
		return npyArray{}, where(int64(len(b)), err.Error())
	}
	if len(b) > maxNPYMember {
		return npyArray{}, where(maxNPYMember, fmt.Sprintf("longer than the %d MiB an evaluation log may hold", maxNPYMember>>20))
	}
	a, ne := parseNPY(b)
	if ne != nil {
		return npyArray{}, where(ne.off, ne.msg)
	}
	return a, nil
}

// sb3Evals are an evaluations.npz's arrays, their shapes checked.
type sb3Evals struct {
	n, k                        int
	steps                       []int64
	results, lengths, successes []float64 // n×k each, nil when absent
}

func sb3Shapes(path string, arrays map[string]npyArray) (sb3Evals, error) {
	bad := func(msg string) error { return &Error{Path: path, Offset: -1, Msg: msg} }
	ts, res := arrays["timesteps"], arrays["results"]
	if len(ts.shape) != 1 {
		return sb3Evals{}, bad(fmt.Sprintf("timesteps has shape %s: EvalCallback saves one step per evaluation, (n,)", shapeText(ts.shape)))
	}
	if ts.ints == nil {
		return sb3Evals{}, bad(fmt.Sprintf("timesteps are %s, not integers", ts.descr))
	}
	n := ts.shape[0]
	if len(res.shape) != 2 || res.shape[0] != n {
		return sb3Evals{}, bad(fmt.Sprintf("results has shape %s: with %d timesteps, EvalCallback saves (%d, n_eval_episodes)", shapeText(res.shape), n, n))
	}
	ev := sb3Evals{n: n, k: res.shape[1], steps: ts.ints, results: res.vals}
	for _, name := range []string{"ep_lengths", "successes"} {
		a, ok := arrays[name]
		if !ok {
			continue
		}
		if len(a.shape) != 2 || a.shape[0] != n || (name == "ep_lengths" && a.shape[1] != ev.k) {
			return sb3Evals{}, bad(fmt.Sprintf("%s has shape %s, unlike results' %s", name, shapeText(a.shape), shapeText(res.shape)))
		}
		if name == "ep_lengths" {
			ev.lengths = a.vals
		} else {
			ev.successes = a.vals
		}
	}
	return ev, nil
}

// deliver sends each evaluation's points in order.
func (ev sb3Evals) deliver(sink Sink) (int64, error) {
	want := map[string]bool{}
	for _, t := range []string{sb3MeanReward, sb3EpisodeReward, sb3Episodes} {
		want[t] = sink.Want(t)
	}
	if ev.lengths != nil {
		want[sb3MeanEpLength], want[sb3EpisodeLength] = sink.Want(sb3MeanEpLength), sink.Want(sb3EpisodeLength)
	}
	if ev.successes != nil {
		want[sb3SuccessRate], want[sb3EpisodeSuccess] = sink.Want(sb3SuccessRate), sink.Want(sb3EpisodeSuccess)
	}
	var points int64
	put := func(tag string, step int64, v float64) error {
		if !want[tag] {
			return nil
		}
		points++
		return sink.Point(tag, Point{Step: step, Value: v})
	}
	// mean and each value of one evaluation's row of an n×k array.
	row := func(vals []float64, i int, meanTag, eachTag string) error {
		if vals == nil {
			return nil
		}
		r := vals[i*ev.k : (i+1)*ev.k]
		if err := put(meanTag, ev.steps[i], mean(r)); err != nil {
			return err
		}
		for _, v := range r {
			if err := put(eachTag, ev.steps[i], v); err != nil {
				return err
			}
		}
		return nil
	}
	for i := range ev.n {
		step := ev.steps[i]
		if err := put(sb3Episodes, step, float64(ev.k)); err != nil {
			return points, err
		}
		if err := row(ev.results, i, sb3MeanReward, sb3EpisodeReward); err != nil {
			return points, err
		}
		if err := row(ev.lengths, i, sb3MeanEpLength, sb3EpisodeLength); err != nil {
			return points, err
		}
		if ev.successes != nil {
			k := len(ev.successes) / max(ev.n, 1)
			r := ev.successes[i*k : (i+1)*k]
			if err := put(sb3SuccessRate, step, mean(r)); err != nil {
				return points, err
			}
			for _, v := range r {
				if err := put(sb3EpisodeSuccess, step, v); err != nil {
					return points, err
				}
			}
		}
	}
	return points, nil
}

// mean is the arithmetic mean; NaN for no values (numpy's mean of an
// empty row).
func mean(vs []float64) float64 {
	if len(vs) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, v := range vs {
		s += v
	}
	return s / float64(len(vs))
}

// zipUnaccounted says where an archive holds bytes its records do not
// account for, "" when none: an archive must begin with its first array's
// header, each array's header must follow the one before (and its data
// descriptor), the central directory must follow the last, and the end
// record must end the file. Bytes elsewhere (an older archive in front,
// junk around or between the arrays) would be hashed into a ledger entry
// without being read. numpy writes none.
func zipUnaccounted(r io.ReaderAt, size int64, zr *zip.Reader) string {
	read := func(off int64, n int) []byte {
		if off < 0 || off+int64(n) > size {
			return nil
		}
		b := make([]byte, n)
		if _, err := r.ReadAt(b, off); err != nil {
			return nil
		}
		return b
	}
	le16 := func(b []byte) int64 { return int64(binary.LittleEndian.Uint16(b)) }
	le32 := func(b []byte) int64 { return int64(binary.LittleEndian.Uint32(b)) }
	// The end record: the last one in the file's tail, which must end it.
	tailLen := min(size, 22+0xffff)
	tail := read(size-tailLen, int(tailLen))
	i := bytes.LastIndex(tail, []byte("PK\x05\x06"))
	if i < 0 || i+22 > len(tail) || int64(i)+22+le16(tail[i+20:]) != tailLen {
		return "after its end record"
	}
	endAt := size - tailLen + int64(i)
	cdSize, cdOff := le32(tail[i+12:]), le32(tail[i+16:])
	zip64 := cdSize == 0xffffffff || cdOff == 0xffffffff
	if !zip64 && cdOff+cdSize != endAt {
		return "around its central directory (another archive in front of it, or bytes inside)"
	}
	files := slices.Clone(zr.File)
	offs := make(map[*zip.File]int64, len(files))
	for _, f := range files {
		d, err := f.DataOffset()
		if err != nil {
			return "before " + f.Name
		}
		offs[f] = d
	}
	sort.Slice(files, func(a, b int) bool { return offs[files[a]] < offs[files[b]] })
	pos := int64(0)
	var prev *zip.File
	// follows says whether a record of the given signature starts at one
	// of the places prev's data descriptor may end.
	follows := func(at int64, ok func(h int64) bool) bool {
		if prev == nil || prev.Flags&0x8 == 0 {
			return ok(at)
		}
		for _, n := range []int64{12, 16, 20, 24} {
			d := read(at, int(n))
			if d == nil {
				continue
			}
			if n == 16 || n == 24 {
				if !bytes.HasPrefix(d, []byte("PK\x07\x08")) {
					continue
				}
				d = d[4:]
			}
			var csize, usize int64
			if n <= 16 {
				csize, usize = le32(d[4:]), le32(d[8:])
			} else {
				csize, usize = int64(binary.LittleEndian.Uint64(d[4:])), int64(binary.LittleEndian.Uint64(d[12:]))
			}
			if uint32(le32(d)) == prev.CRC32 && uint64(csize) == prev.CompressedSize64 && uint64(usize) == prev.UncompressedSize64 && ok(at+n) {
				return true
			}
		}
		return false
	}
	for _, f := range files {
		header := func(h int64) bool {
			b := read(h, 30)
			return b != nil && bytes.HasPrefix(b, []byte("PK\x03\x04")) && le16(b[26:]) == int64(len(f.Name)) &&
				h+30+le16(b[26:])+le16(b[28:]) == offs[f]
		}
		if !follows(pos, header) {
			if prev == nil {
				if h := offs[f] - 30 - int64(len(f.Name)) - int64(len(f.Extra)); h > 0 && header(h) {
					return fmt.Sprintf("%d bytes before its first array", h)
				}
				return "before its first array"
			}
			return "before " + f.Name
		}
		pos, prev = offs[f]+int64(f.CompressedSize64), f
	}
	if !zip64 && !follows(pos, func(h int64) bool { return h == cdOff }) {
		return "after its last array"
	}
	return ""
}
