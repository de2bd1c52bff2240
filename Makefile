# ccarena: `make demo` and `make test` work on a fresh machine with only python3 and cargo.
# A virtualenv in .venv holds the Python side; stamp files there make re-runs cheap: the
# extension is rebuilt only when Rust sources, Cargo files or pyproject.toml change.

PYTHON ?= python3
# Profile-guided optimisation of the extension (tools/build_ext.sh): opt-in, PGO=1.
PGO ?= 0
VENV   := .venv
BIN    := $(VENV)/bin
VENV_ABS := $(abspath $(VENV))

# Everything the compiled extension depends on.
RUST_SOURCES := Cargo.toml $(wildcard Cargo.lock) $(shell find crates -name '*.rs' -o -name Cargo.toml 2>/dev/null)

STAMP_VENV := $(VENV)/.stamp-venv
STAMP_EXT  := $(VENV)/.stamp-ext
STAMP_DEV  := $(VENV)/.stamp-dev
STAMP_PYC  := $(VENV)/.stamp-pyc
PY_SOURCES := $(shell find python/ccarena -name '*.py' 2>/dev/null)

.PHONY: all demo test lint wheel test-rust test-python stubtest typecheck bench golden install dev clean distclean tools peers peers-best-effort

all: demo

# A virtualenv with pip and maturin.
$(STAMP_VENV):
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet 'maturin>=1.9,<2'
	touch $@

# Build the extension in release mode and install the package (editable: python/ is used in
# place) with its runtime dependencies; profile-guided with `make install PGO=1`
# (tools/build_ext.sh).
$(STAMP_EXT): $(STAMP_VENV) pyproject.toml $(RUST_SOURCES) tools/build_ext.sh tools/pgo_train.py
	PGO=$(PGO) tools/build_ext.sh $(VENV_ABS)
	touch $@

# Test tools: the `dev` extra of pyproject.toml.
$(STAMP_DEV): $(STAMP_VENV) pyproject.toml
	$(BIN)/python -c "import tomllib; print('\n'.join(tomllib.load(open('pyproject.toml', 'rb'))['project']['optional-dependencies']['dev']))" > $(VENV)/dev-requirements.txt
	$(BIN)/python -m pip install --quiet -r $(VENV)/dev-requirements.txt
	touch $@

# Bytecode of the package's own modules. pip compiles what it installs from wheels, but python/
# is installed in place, and where PYTHONDONTWRITEBYTECODE is set (as in many container images)
# every `ccarena` would compile the modules it imports again: up to 60 ms a start (BENCHMARKS.md, B3).
$(STAMP_PYC): $(STAMP_VENV) $(PY_SOURCES)
	$(BIN)/python -m compileall -q python/ccarena
	touch $@

install: $(STAMP_EXT) $(STAMP_PYC)

dev: $(STAMP_EXT) $(STAMP_PYC) $(STAMP_DEV)

## demo: run the bundled demo scenarios; open out/demo/index.html
demo: $(STAMP_EXT) $(STAMP_PYC)
	$(BIN)/ccarena demo -o out/demo

## test: the linters, Rust unit tests, pytest, the binding's stubs checked against the module, mypy
test: lint test-rust test-python stubtest typecheck

## lint: rustfmt (rustfmt.toml), clippy with warnings as errors, ruff (pyproject.toml's [tool.ruff])
lint: dev
	cargo fmt --all --check
	cargo clippy --workspace --all-targets --quiet -- -D warnings
	$(BIN)/ruff check python tests tools

test-rust:
	cargo test --workspace --exclude ccarena-py

test-python: dev tools peers-best-effort wheel
	$(BIN)/python -m pytest

## tools: Debian packages some tests use: tshark for the packet-capture tests (docs/pcap.md),
## ethtool and ping for the kernel testbed (docs/testbed.md); best effort: the tests that need
## them are skipped, with the reason, where they cannot be installed (no root, no apt)
TOOL_PACKAGES := tshark:tshark ethtool:ethtool ping:iputils-ping ip:iproute2
tools:
	@missing=$$(for tp in $(TOOL_PACKAGES); do command -v $${tp%%:*} >/dev/null 2>&1 || printf '%s ' $${tp#*:}; done); \
	if [ -n "$$missing" ] && [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		echo "installing $$missing(Debian packages) for the capture and testbed tests"; \
		export DEBIAN_FRONTEND=noninteractive; \
		timeout 300 apt-get install -y -q $$missing >/dev/null 2>&1 || \
		{ timeout 300 apt-get update -q >/dev/null 2>&1 && timeout 300 apt-get install -y -q $$missing >/dev/null 2>&1; } || true; \
	fi

## peers: install ns-2.35 and ns-3.37 (Debian packages ns2, libns3-dev, and the compiler the ns-3
## driver needs) and build the ccarena ns-3 driver (docs/peers.md); needs root and apt
PEER_PACKAGES := ns2 libns3-dev g++ pkg-config nlohmann-json3-dev
peers: $(STAMP_EXT) $(STAMP_PYC)
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q $(PEER_PACKAGES) >/dev/null || \
		{ apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $(PEER_PACKAGES) >/dev/null; }
	$(BIN)/python -c "from ccarena.peers import ns3; print('ns-3 driver:', ns3.driver())"

# `make test` installs the peers where it can (root, apt); their tests skip, with the reason, elsewhere.
peers-best-effort: $(STAMP_EXT) $(STAMP_PYC)
	@if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		timeout 900 $(MAKE) --no-print-directory peers || echo "peers: not installed; their tests will be skipped"; \
	fi

stubtest: dev
	$(BIN)/python -m mypy.stubtest ccarena._core

typecheck: dev
	$(BIN)/python -m mypy

## bench: time the reference benchmark scenario (see BENCHMARKS.md)
bench: $(STAMP_EXT) $(STAMP_PYC)
	$(BIN)/ccarena bench

## wheel: the installable package, dist/ccarena-VERSION-cp311-abi3-PLATFORM.whl (one wheel for
## every CPython >= 3.11 on this platform; docs/install.md says how to publish it)
STAMP_WHEEL := dist/.stamp-wheel
wheel: $(STAMP_WHEEL)
$(STAMP_WHEEL): $(STAMP_VENV) pyproject.toml $(RUST_SOURCES) $(PY_SOURCES) $(shell find python/ccarena -name '*.toml' 2>/dev/null)
	rm -f dist/ccarena-*.whl
	$(BIN)/maturin build --release --quiet --out dist
	touch $@

## golden: rewrite tests/golden/ from the current engine (review the diff: see tests/test_golden.py)
golden: dev
	CCARENA_UPDATE_GOLDEN=1 $(BIN)/python -m pytest tests/test_golden.py -q

clean:
	rm -rf out .pytest_cache .mypy_cache $(STAMP_EXT) $(STAMP_PYC)

distclean: clean
	rm -rf $(VENV) target
