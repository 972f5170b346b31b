package metrics

import (
	"archive/zip"
	"errors"
	"fmt"
	"io"
	"math"
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
	zr, err := zip.NewReader(bf.r, size)
	if err != nil {
		return Info{}, &Error{Path: path, Offset: -1, Msg: "not a complete .npz (zip) archive: " + err.Error() +
			" (an archive is readable only once its writer has finished it)"}
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
