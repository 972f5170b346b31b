package audit

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCommentsNotStrings: a # inside a string literal before a call on
// its line opens no comment; a real comment still hides what follows it.
func TestCommentsNotStrings(t *testing.T) {
	src := "import wandb\nfrom torch.utils.tensorboard import SummaryWriter\n" +
		"sep = '#' * 40; writer = SummaryWriter(log_dir)\n" +
		"x = 1  # wandb.init(project='p')\n" +
		"parser = argparse.ArgumentParser(description='run #1'); parser.add_argument('--seed', type=int)\n"
	f := newScanner(nil).scanFile("train.py", kindPython, src)
	var got []string
	for _, h := range f.hits {
		if h.cat == catBackend || h.cat == catParser {
			got = append(got, h.cat+" "+h.name)
		}
	}
	for _, fd := range f.flags {
		got = append(got, "flag "+fd.name)
	}
	want := []string{"parser argparse", "backend tensorboard", "flag --seed"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("hits (-want +got):\n%s", diff)
	}
}
