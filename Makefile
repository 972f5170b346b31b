# rlxp: build, demo and test.
GO      ?= go
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
BIN      = plugins/rl-experiment-assistant/bin/rlxp
LDFLAGS  = -s -w -X main.version=$(VERSION)

.PHONY: build demo demo-check test test-go test-python test-update check-artifacts fuzz bench bench-score bench-guard bench-floors bench-preflight bench-inspect bench-dashboard bench-audit bench-audit-accuracy lint clean slurm-up slurm-down slurm-status

# rlxp is the front: it answers --version and contract status itself and
# hands every other command to rlxp-core beside it (docs/performance.md).
# rlxp-guard, the plugin's hook, is 'rlxp guard' linked alone (docs/guard.md);
# its copy of the command table is regenerated from rlxp's first.
build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/rlxp
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "$(LDFLAGS)" -o $(BIN)-core ./cmd/rlxp-core
	$(GO) generate ./cmd/rlxp-guard
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "-s -w" -o $(dir $(BIN))rlxp-guard ./cmd/rlxp-guard

# DEMO_DIR=DIR keeps the demo's repository (and prints how to reopen its
# dashboard); VERBOSE=1 shows every command's full output.
demo: build
	DEMO_DIR=$(DEMO_DIR) bash scripts/demo.sh $(if $(VERBOSE),--verbose) $(BIN)

# The demo, run as make demo runs it, reads in under 150 lines.
DEMO_MAX_LINES ?= 149
demo-check: build
	@out=$$(mktemp); trap 'rm -f "$$out"' EXIT; \
	NO_COLOR=1 bash scripts/demo.sh $(BIN) </dev/null >"$$out" 2>&1 || { cat "$$out"; echo "demo-check: the demo failed"; exit 1; }; \
	n=$$(wc -l <"$$out"); \
	if [ "$$n" -gt $(DEMO_MAX_LINES) ]; then cat "$$out"; echo "demo-check: the demo prints $$n lines; at most $(DEMO_MAX_LINES)"; exit 1; fi; \
	echo "demo-check: the demo prints $$n lines (at most $(DEMO_MAX_LINES))"

test: check-artifacts test-go test-python demo-check

# Many end-to-end scripts mostly wait (on runs, Slurm, a browser), so more
# run at once than there are cores; the end-to-end package alone runs for
# minutes on a two-core machine, past go test's 10-minute default.
TESTFLAGS ?= -parallel 4 -timeout 30m
# Ends with one line per skipped test and its reason; under CI=true a skip
# not listed in .ci/expected-skips fails (CI installs what the tests need).
test-go:
	$(GO) vet ./...
	CGO_ENABLED=0 $(GO) build ./...
	@bash -o pipefail -c '$(GO) test -json $(TESTFLAGS) ./... | $(GO) run ./scripts/testsummary $(if $(filter true,$(CI)),-expect .ci/expected-skips)'

# No build output (an executable, a file over 1 MB outside testdata/) is tracked.
check-artifacts:
	bash scripts/check-artifacts.sh

test-python:
	python3 -m unittest discover -s examples/cartpole/tests -t examples/cartpole

test-update:
	$(GO) test ./cmd/rlxp -run TestScript -update

# Each fuzz target for FUZZTIME (go test runs one target per invocation).
FUZZTIME ?= 30s
fuzz:
	@for pkg in $$($(GO) list ./...); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
	    echo "== $$pkg $$f"; $(GO) test $$pkg -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) || exit 1; \
	  done; \
	done

bench: build
	bash scripts/bench-contract-status.sh $(BIN)

bench-score: build
	bash scripts/bench-score.sh $(BIN)

bench-guard: build
	bash scripts/bench-guard.sh $(BIN)

# What importing each dependency costs at start, against an empty static Go
# binary, and rlxp --version beside them (docs/performance.md).
bench-floors: build
	bash scripts/bench-floors.sh $(BIN)

# What the built-in preflight adds to check on the example, beside the
# interpreter's start (PYTHON=/usr/bin/python3 to name another).
bench-preflight: build
	bash scripts/bench-preflight.sh $(BIN)

# CPUS=0,1 pins the contenders to two CPUs, as on the reference machine.
bench-inspect: build
	bash scripts/bench-inspect.sh $(BIN)

# /api/state of a 1,000-run lab (three sources and a log each), warm (only
# changed files read) and cold (every file read).
bench-dashboard:
	$(GO) test ./internal/dashboard -run '^$$' -bench BenchmarkState -benchtime 3x

# AUDIT_REPO: a large work tree or bare git directory, e.g. one fetched
# from github.com/isaac-sim/IsaacLab.
bench-audit: build
	@test -n "$(AUDIT_REPO)" || { echo "set AUDIT_REPO to a large repository" >&2; exit 2; }
	bash scripts/bench-audit.sh $(BIN) $(AUDIT_REPO)

# The audit's accuracy against hand-checked facts about public repositories
# (bench/audit-accuracy/facts.yaml). AUDIT_REPOS: a directory of checkouts,
# made by scripts/bench-audit-fetch.sh AUDIT_REPOS [MIRRORS].
AUDIT_REPOS ?= $(or $(TMPDIR),/tmp)/rlxp-audit-repos
bench-audit-accuracy:
	@if [ ! -d "$(AUDIT_REPOS)" ]; then echo "bench-audit-accuracy: skipped: no checkouts in $(AUDIT_REPOS) (run: bash scripts/bench-audit-fetch.sh $(AUDIT_REPOS))"; \
	else $(GO) run ./bench/audit-accuracy -facts bench/audit-accuracy/facts.yaml -repos $(AUDIT_REPOS); fi

lint:
	$(GO) vet ./...
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); exit 1; }

clean:
	rm -f $(BIN) $(BIN)-core $(dir $(BIN))rlxp-guard

# A one-node Slurm cluster on localhost for the Slurm backend's tests (root,
# Debian packages slurm-wlm and munge): eval "$(make -s slurm-up)" starts it
# and exports SLURM_CONF and RLXP_SLURM=1 for `make test`.
SLURM_DIR ?= /tmp/rlxp-slurm
slurm-up:
	@bash scripts/slurm-localhost.sh start $(SLURM_DIR)
	@echo "export RLXP_SLURM=1"

slurm-down:
	bash scripts/slurm-localhost.sh stop $(SLURM_DIR)

slurm-status:
	bash scripts/slurm-localhost.sh status $(SLURM_DIR)
