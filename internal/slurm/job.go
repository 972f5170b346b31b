package slurm

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// A Job is what scontrol says about one job.
type Job struct {
	ID     string
	Name   string
	State  string // PENDING, RUNNING, COMPLETED, FAILED, CANCELLED, TIMEOUT, …
	Reason string // why it is pending or how it ended; "None" when nothing to say
	// Exit is the batch script's exit status and Signal the signal that
	// ended it (0 for none), from ExitCode=status:signal.
	Exit   int
	Signal int
	Nodes  string
	Submit time.Time
	// Start and End are as the controller reports them: a pending job's
	// are an estimate (or zero), a running job's End is its deadline.
	Start     time.Time
	End       time.Time
	TimeLimit string
	RunTime   string
	StdOut    string
}

// Ended says whether the job has finished for good.
func (j Job) Ended() bool {
	switch j.State {
	case "BOOT_FAIL", "CANCELLED", "COMPLETED", "DEADLINE", "FAILED",
		"NODE_FAIL", "OUT_OF_MEMORY", "PREEMPTED", "TIMEOUT":
		return true
	}
	return false
}

// Began is when the job started, zero while it waits: a pending job's
// StartTime is only the controller's estimate.
func (j Job) Began() time.Time {
	if j.State == "PENDING" {
		return time.Time{}
	}
	return j.Start
}

// Finished is when the job ended, zero until it has: a running job's
// EndTime is its deadline.
func (j Job) Finished() time.Time {
	if !j.Ended() {
		return time.Time{}
	}
	return j.End
}

// keyRE is compiled on first use: package initialisation runs before
// every rlxp command, the guard hook included.
var keyRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_:/]*=`) })

// ParseJob reads one line of "scontrol show job -o": space-separated
// Key=Value pairs, where a value may itself contain spaces (a command line,
// a path), so a word that does not start a new key continues the last
// value. Times without a zone are in loc, the controller's zone.
func ParseJob(line []byte, loc *time.Location) (Job, error) {
	fields := map[string]string{}
	var last string
	for _, w := range strings.Fields(string(line)) {
		if keyRE().MatchString(w) {
			k, v, _ := strings.Cut(w, "=")
			fields[k], last = v, k
			continue
		}
		if last == "" {
			return Job{}, fmt.Errorf("unexpected %q before the first Key=Value", w)
		}
		fields[last] += " " + w
	}
	j := Job{
		ID: fields["JobId"], Name: fields["JobName"], State: fields["JobState"],
		Reason: fields["Reason"], Nodes: fields["NodeList"],
		TimeLimit: fields["TimeLimit"], RunTime: fields["RunTime"], StdOut: fields["StdOut"],
	}
	if j.ID == "" || j.State == "" {
		return j, errors.New("no JobId or JobState in scontrol output")
	}
	if ec := fields["ExitCode"]; ec != "" {
		s, sig, ok := strings.Cut(ec, ":")
		var err1, err2 error
		j.Exit, err1 = strconv.Atoi(s)
		j.Signal, err2 = strconv.Atoi(sig)
		if !ok || err1 != nil || err2 != nil {
			return j, fmt.Errorf("ExitCode=%s: want status:signal", ec)
		}
	}
	for _, t := range []struct {
		key string
		dst *time.Time
	}{{"SubmitTime", &j.Submit}, {"StartTime", &j.Start}, {"EndTime", &j.End}} {
		v := fields[t.key]
		if v == "" || v == "Unknown" || v == "None" || v == "(null)" {
			continue
		}
		tm, err := time.ParseInLocation("2006-01-02T15:04:05", v, loc)
		if err != nil {
			return j, fmt.Errorf("%s=%s: %w", t.key, v, err)
		}
		*t.dst = tm
	}
	return j, nil
}
