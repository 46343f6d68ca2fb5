# vkstat — see README.md. `make demo` and `make test` install what they need.
GO      ?= go
BIN     := bin/vkstat
# The VERSION file's release, with the commit unless HEAD is its tag
# (scripts/version.sh): 0.1.0+ga6372c6.
VERSION := $(shell scripts/version.sh 2>/dev/null || echo dev)
PREFIX  ?= /usr/local
LDFLAGS := -X github.com/vkstat/vkstat/cli.Version=$(VERSION)
# urfave_cli_no_docs leaves out urfave/cli's man-page and Markdown writers,
# which vkstat does not use: their Markdown parser's tables cost every run
# 1.2-1.4 ms of start-up.
BUILDTAGS := urfave_cli_no_docs

.PHONY: all build install man demo test test-datapath test-short shaders check-shaders check-examples lint lint-gofmt fuzz bench-cpu bench-paco clean deps pylib wheel test-python

all: build

deps:
	@scripts/deps.sh build

build: deps
	$(GO) build -tags $(BUILDTAGS) -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/vkstat

# bin/vkstat, its manual page and its bash completion under $(PREFIX)
# (/usr/local: sudo make install, or PREFIX=$$HOME/.local make install).
# It installs what make build made (root's PATH may have no Go) and
# writes nothing into the tree.
install:
	@[ -x $(BIN) ] || { echo "make install: no $(BIN); run make build (as yourself) first" >&2; exit 1; }
	install -D -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/vkstat
	mkdir -p $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/bash-completion/completions
	$(BIN) man >$(DESTDIR)$(PREFIX)/share/man/man1/vkstat.1
	$(BIN) completion bash >$(DESTDIR)$(PREFIX)/share/bash-completion/completions/vkstat

# The manual page, made from the help: bin/vkstat.1 (man -l bin/vkstat.1).
man: build
	$(BIN) man >bin/vkstat.1

# The main job on the default device (a GPU if there is one, else the CPU
# path), then the same on lavapipe when it is installed.
demo: build
	@scripts/demo.sh $(BIN)

# The Vulkan drivers tests run on: the system's (lavapipe without a GPU)
# plus SwiftShader, fetched by scripts/deps.sh test.
WITH_SWIFTSHADER = VK_ADD_DRIVER_FILES=$$(scripts/deps.sh swiftshader-icd)

# Every test: the CPU path and every Vulkan device (lavapipe, lavapipe
# without float64 and SwiftShader without a GPU), with the validation layer on;
# then the data paths of a discrete GPU (scripts/test-datapath.sh); then
# the cov and latent suites under a tune cache written here
# (scripts/test-tuned.sh); then the Python package (test-python, which
# builds the C library the README's pip install then finds compiled);
# then the README's examples, top to bottom in a clean clone
# (scripts/readme-test.sh: pip install . among them); then vkstat survey's
# Slurm path on a one-node Slurm cluster started for it
# (scripts/test-slurm.sh, as root).
test:
	@scripts/deps.sh test
	$(WITH_SWIFTSHADER) $(GO) test -timeout 30m ./...
	$(WITH_SWIFTSHADER) scripts/test-datapath.sh
	$(WITH_SWIFTSHADER) scripts/test-tuned.sh
	$(GO) build -tags $(BUILDTAGS) -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/vkstat
	$(MAKE) test-python
	scripts/readme-test.sh --self-check --bin $(BIN)
	scripts/readme-test.sh --bin $(BIN)
	scripts/test-slurm.sh $(BIN)

test-short:
	@scripts/deps.sh test
	$(GO) test -short ./...

# The short tests under the race detector, RACE_RUNS times over (two;
# CI runs one, for time):
# rare crashes and races show up only across repeated runs. One device
# (lavapipe): make test covers SwiftShader and lavapipe without float64.
RACE_RUNS ?= 2
# RACE_PKGS: the packages (default all; CI leaves out cli, whose commands
# the race detector slows most and whose library calls the other packages'
# tests cover).
RACE_PKGS ?= ./...
# RACE_SKIP: tests left out (go test -skip; CI leaves out the pipelines'
# TestVulkan*, which make test runs on both drivers with validation: under
# the race detector they spent 10 of its 18 minutes of CPU on lavapipe).
RACE_SKIP ?=
.PHONY: test-race
test-race:
	@scripts/deps.sh test
	for i in $$(seq $(RACE_RUNS)); do env -u VK_ADD_DRIVER_FILES VKSTAT_TEST_WITHOUT_FLOAT64=0 $(GO) test -race -short -count=1 $(if $(RACE_SKIP),-skip '$(RACE_SKIP)') $(RACE_PKGS) || exit 1; done

# Compile shaders/*.comp (variants in shaders/variants.txt) to shaders/spv.
shaders:
	shaders/build.sh

# Fail when a committed .spv differs from what the sources compile to.
check-shaders:
	@tmp=$$(mktemp -d) && trap 'rm -rf $$tmp' EXIT && shaders/build.sh $$tmp && \
	status=0 && for f in $$tmp/*.spv; do \
		cmp -s $$f shaders/spv/$$(basename $$f) || { echo "stale: shaders/spv/$$(basename $$f) (run make shaders)"; status=1; }; \
	done && for f in shaders/spv/*.spv; do \
		[ -f $$tmp/$$(basename $$f) ] || { echo "orphan: $$f is not in shaders/variants.txt"; status=1; }; \
	done && exit $$status

# vkstat shader check on every example shader against its expected output
# (examples/shaders); VKSTAT_FLAGS adds global flags, e.g. --device all.
check-examples: build
	examples/shaders/check.sh $(BIN) --validate $(VKSTAT_FLAGS)

# gofmt, go vet and staticcheck; any finding fails. The nogdal build (what
# scripts/gpu-run.sh carries to machines without GDAL) is vetted too.
lint: lint-gofmt
	$(GO) vet ./...
	$(GO) vet -tags nogdal ./formats ./cli ./cmd/...
	$$( command -v staticcheck || echo $$($(GO) env GOPATH)/bin/staticcheck ) ./...

# Fails when gofmt -l lists any file (internal/lintcheck tests that it does).
lint-gofmt:
	@scripts/gofmt-check.sh .

# Every fuzz target for FUZZTIME each (a count of inputs, 20000x by default,
# or a duration), with minimising off so the time goes to fuzzing.
FUZZTIME ?= 20000x
fuzz:
	@GO=$(GO) scripts/fuzz.sh $(FUZZTIME)

# CPU-machine benchmarks: vkstat bench on the CPU path and lavapipe, and
# the NumPy peers on the same workloads, in one run; writes
# docs/benchmarks/cpu.md (raw figures and chart in out/bench/).
bench-cpu: build
	@scripts/deps.sh bench
	scripts/bench-cpu.sh $(BIN)

# PACO per stage, CPU path and lavapipe against the NumPy implementation;
# writes docs/benchmarks/paco.md.
bench-paco: build
	@scripts/deps.sh bench
	scripts/bench-paco.sh

# The Python package (python/vkstat) over the library's C ABI: the shared
# library beside the package's sources, a wheel that bundles it, and the
# package's tests (Debian's python3-numpy and python3-pytest, under
# $(PYTHON), then the wheel installed into a fresh venv).
PYTHON  ?= /usr/bin/python3
PYLIB   := python/vkstat/libvkstat.so

# The library links libstdc++ statically (glslang's, VkFFT's; internal/glsl)
# and exports none of it: Python loads no second C++ runtime (2-4 ms), and
# another library's libstdc++ in the process is never mixed with ours.
pylib: deps
	$(GO) build -buildmode=c-shared -ldflags "-s -w -extldflags=-Wl,--exclude-libs,ALL -X github.com/vkstat/vkstat/capi.Version=$(VERSION)" -o $(PYLIB) ./cmd/libvkstat
	@rm -f python/vkstat/libvkstat.h

wheel: pylib
	$(PYTHON) python/build_wheel.py --version "$(VERSION)" --out dist

test-python: pylib build
	@scripts/deps.sh test
	PYTHONPATH=python $(PYTHON) -m pytest -q --doctest-modules python/tests python/vkstat
	PYTHON=$(PYTHON) scripts/test-wheel.sh

clean:
	rm -rf bin out dist $(PYLIB)
