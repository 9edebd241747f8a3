# Build, test, demo and benchmark greendcn. `make help` lists the targets.
# Every target installs what it needs from nothing: a virtualenv in .venv, the Python packages,
# and a release build of the Rust engine and native tools.
SHELL := /bin/bash
VENV ?= .venv
PY := $(VENV)/bin/python
PYTHON ?= python3
RUST_SOURCES := $(shell find crates -name '*.rs' -o -name 'Cargo.toml') Cargo.toml
export PYTHONHASHSEED := 0

.PHONY: help build demo test test-rust test-python bench lint validate validate-opera clean chromium docs

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-12s %s\n", $$1, $$2}'

$(VENV)/.venv-ok:
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q "maturin>=1.7,<2"
	touch $@

$(VENV)/.built: $(VENV)/.venv-ok pyproject.toml $(RUST_SOURCES)
	VIRTUAL_ENV=$(abspath $(VENV)) PATH=$(abspath $(VENV))/bin:$$PATH \
	  $(VENV)/bin/maturin develop --release -E dev -q
	cargo build --release --workspace --exclude greendcn-py --bins -q
	touch $@

build: $(VENV)/.built ## create .venv, install packages, build the engine and native tools (release)

demo: build ## run the main job on built-in defaults
	$(VENV)/bin/greendcn demo

test: build test-rust test-python ## run every test (cargo test and pytest)

test-rust: ## Rust tests of the engine and native tools
	cargo test --release --workspace --exclude greendcn-py -q

test-python: build chromium ## Python tests
	$(VENV)/bin/pytest

# The report test renders a page in headless Chromium (Debian's chromium and chromium-driver). Installed here
# when missing and we are root; otherwise that one test skips and says how to install them (README).
chromium: ## install headless Chromium and its driver for the report test, if root and missing
	@if command -v chromium >/dev/null && [ -x /usr/bin/chromedriver ]; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  echo "installing chromium and chromium-driver (apt-get) for the report test"; \
	  apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium chromium-driver >/dev/null \
	    || echo "warning: could not install chromium; the report test will skip"; \
	else echo "note: chromium not installed and not root; the report test will skip (README: Chromium)"; fi

bench: build ## run the benchmarks and print figures with units
	$(PY) benchmarks/run.py

# The ns-3 cross-check (docs/reproduce-rps.md): ns-3 from PyPI in its own virtualenv, our program against it.
NS3_VENV ?= .venv-ns3
NS3_BIN := $(NS3_VENV)/ns3_network

$(NS3_VENV)/.ns3-ok:
	$(PYTHON) -m venv $(NS3_VENV)
	$(NS3_VENV)/bin/python -m pip install -q "ns3==3.44.post0"
	touch $@

$(NS3_BIN): $(NS3_VENV)/.ns3-ok validate/ns3_network.cc
	NS=$$($(NS3_VENV)/bin/python -c "import importlib.util as u; print(list(u.find_spec('ns3').submodule_search_locations)[0])") && \
	  $${CXX:-g++} -O2 -std=c++20 -I$$NS/include -o $@ validate/ns3_network.cc -L$$NS/lib64 -Wl,-rpath,$$NS/lib64 \
	  -lns3.44-core -lns3.44-network -lns3.44-internet -lns3.44-point-to-point -lns3.44-applications \
	  -lns3.44-traffic-control

validate: build $(NS3_BIN) ## seed 003's scenarios in greendcn and ns-3 side by side (not part of make test)
	$(PY) validate/run.py --ns3-binary $(NS3_BIN) $(VALIDATE_ARGS)

# The Opera paper's Figure 9 files against the public Opera simulator's outputs (docs/opera-paper.md). Needs a
# checkout of TritonNetworking/opera-sim in OPERA_SIM_DIR; without it, says so and succeeds.
validate-opera: ## Opera paper Figure 9: ours beside the public simulator's (OPERA_SIM_DIR; not part of make test)
	@if [ -z "$$OPERA_SIM_DIR" ]; then \
	  echo "validate-opera: OPERA_SIM_DIR is not set; nothing to compare (set it to a checkout of"; \
	  echo "  TritonNetworking/opera-sim, e.g. make validate-opera OPERA_SIM_DIR=../opera-sim; docs/opera-paper.md)"; \
	else $(MAKE) -s build && $(PY) validate/opera_paper.py "$$OPERA_SIM_DIR" $(VALIDATE_OPERA_ARGS); fi

docs: build ## rewrite the docs' tables of measured output from the commands they quote (scripts/docs_tables.py)
	$(PY) scripts/docs_tables.py

lint: build ## ruff (lints and formatting), rustfmt and clippy
	$(VENV)/bin/ruff check python tests benchmarks validate scripts/docs_tables.py
	$(VENV)/bin/ruff format --check python tests benchmarks validate scripts/docs_tables.py
	cargo fmt --all -- --check
	cargo clippy --workspace --all-targets -q -- -D warnings

clean: ## remove build products and the virtualenvs
	rm -rf $(VENV) $(NS3_VENV) target
