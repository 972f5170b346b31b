package probe

import (
	"errors"
	"io/fs"
	"os"
	"strings"
	"testing"
)

func TestDiskSystem(t *testing.T) {
	dir := t.TempDir()
	s, err := Disk(System(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if s.Path != dir || s.Total == 0 || s.Free > s.Total || s.FreeFraction() < 0 || s.FreeFraction() > 1 {
		t.Errorf("Disk(%s) = %+v", dir, s)
	}
	if _, err := Disk(System(), dir+"/missing"); !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), dir+"/missing") {
		t.Errorf("missing path: %v", err)
	}
	if _, err := os.Stat(ShmPath); err != nil {
		t.Skipf("no %s", ShmPath)
	}
	s, err = Shm(System())
	if err != nil {
		t.Fatal(err)
	}
	if s.Path != ShmPath || s.Total == 0 || s.Free > s.Total {
		t.Errorf("Shm = %+v", s)
	}
}

func TestDiskFake(t *testing.T) {
	h := &fakeHost{statfs: func(p string) (uint64, uint64, error) {
		switch p {
		case "/dev/shm":
			return 48 << 30, 64 << 30, nil
		case "/odd":
			return 10, 5, nil
		case "/empty":
			return 0, 0, nil
		}
		return 0, 0, fs.ErrNotExist
	}}
	s, err := Shm(h)
	if err != nil {
		t.Fatal(err)
	}
	if s.FreeFraction() != 0.75 || s.String() != "/dev/shm: 48.0 GiB free of 64.0 GiB (75%)" {
		t.Errorf("Shm = %+v %q", s, s)
	}
	if s, _ := Disk(h, "/odd"); s.Free != 5 || s.FreeFraction() != 1 || s.String() != "/odd: 5 B free of 5 B (100%)" {
		t.Errorf("free above total: %+v %q", s, s)
	}
	if s, _ := Disk(h, "/empty"); s.FreeFraction() != 0 {
		t.Errorf("empty: %+v", s)
	}
	if _, err := Disk(h, "/nope"); err == nil || err.Error() != "disk space of /nope: file does not exist" {
		t.Errorf("error = %v", err)
	}
	for n, want := range map[uint64]string{0: "0 B", 1023: "1023 B", 1024: "1.0 KiB", 1536 << 20: "1.5 GiB", 1 << 62: "4.0 EiB", ^uint64(0): "16.0 EiB"} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
}
