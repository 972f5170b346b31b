package state

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"time"
)

// ErrLocked means another rlxp process holds the state lock.
var ErrLocked = errors.New("locked")

// A LockedError says who holds the lock. It matches ErrLocked.
type LockedError struct {
	Path   string
	Holder string
}

func (e *LockedError) Error() string {
	return fmt.Sprintf("%s is held by %s; retry when it finishes", e.Path, e.Holder)
}

// Is makes errors.Is(err, ErrLocked) true.
func (e *LockedError) Is(target error) bool { return target == ErrLocked }

// A Lock is an exclusive advisory lock on .rlxp/.lock. The kernel drops it
// when the holder dies, so a crashed writer never leaves the repo locked.
type Lock struct{ f *os.File }

// Lock takes the state lock, waiting up to wait for a holder to finish. When
// it gives up, the error wraps ErrLocked and names the holder.
func (r *Repo) Lock(wait time.Duration) (*Lock, error) {
	f, err := OpenNoFollow(r.Path(lockName), os.O_RDWR|os.O_CREATE, 0o644)
	if errors.Is(err, ErrSymlink) {
		return nil, fmt.Errorf("lock %s %w", r.Show(lockName), ErrSymlink)
	}
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", r.Show(lockName), err)
	}
	deadline := time.Now().Add(wait)
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", r.Show(lockName), err)
		}
		if time.Now().After(deadline) {
			holder, _ := os.ReadFile(r.Path(lockName))
			f.Close()
			return nil, &LockedError{Path: r.Show(lockName), Holder: describeHolder(holder)}
		}
		time.Sleep(20 * time.Millisecond)
	}
	// Record the holder for the message another process shows while waiting.
	if err := f.Truncate(0); err == nil {
		fmt.Fprintf(f, "pid %d: %s\n", os.Getpid(), strings.Join(os.Args, " "))
	}
	return &Lock{f: f}, nil
}

// Unlock releases the lock.
func (l *Lock) Unlock() error {
	l.f.Truncate(0)
	return l.f.Close()
}

func describeHolder(b []byte) string {
	s := strings.TrimSpace(string(b))
	if s == "" {
		return "another rlxp process"
	}
	return s
}
