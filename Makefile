# Build, test, demo and benchmark greendcn. `make help` lists the targets.
# Every target installs what it needs from nothing: a virtualenv in .venv, the Python packages,
# and a release build of the Rust engine and native tools.
SHELL := /bin/bash
VENV ?= .venv
PY := $(VENV)/bin/python
PYTHON ?= python3
RUST_SOURCES := $(shell find crates -name '*.rs' -o -name 'Cargo.toml') Cargo.toml
export PYTHONHASHSEED := 0

.PHONY: help build demo test test-rust test-python bench lint clean

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

test-python: build ## Python tests
	$(VENV)/bin/pytest

bench: build ## run the benchmarks and print figures with units
	$(PY) benchmarks/run.py

lint: build ## ruff and clippy
	$(VENV)/bin/ruff check python tests benchmarks
	cargo clippy --workspace --all-targets -q -- -D warnings

clean: ## remove build products and the virtualenv
	rm -rf $(VENV) target
