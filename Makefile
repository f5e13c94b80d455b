# Two set-up-free entry points: `make demo` and `make test` (both create .venv as needed).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

# The editable install is a link tree (strict mode, so mypy can see the `k8slb` package that
# pyproject maps onto linter/ and rules/); it must be rebuilt when a module is added or
# removed, so the stamp carries a hash of the file list.
# The C builder (native/) is compiled by the install: its sources' contents count too.
FILES_HASH := $(shell find linter rules -type f \( -name '*.py' -o -name '*.pyi' -o -name '*.json' -o -name 'py.typed' \) 2>/dev/null | LC_ALL=C sort | cksum | cut -d' ' -f1)
NATIVE_HASH := $(shell cat setup.py native/*.c native/*.h native/libyaml/* 2>/dev/null | cksum | cut -d' ' -f1)
RUN_STAMP := $(VENV)/.installed-run-$(FILES_HASH)-$(NATIVE_HASH)
TEST_STAMP := $(VENV)/.installed-test-$(FILES_HASH)-$(NATIVE_HASH)
PIP_INSTALL := $(BIN)/python -m pip install -q --disable-pip-version-check

.PHONY: demo test lint install docs eval eval-held-out bench bench-fix bench-count clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(RUN_STAMP): pyproject.toml | $(BIN)/python
	rm -f $(VENV)/.installed-run-*
	$(PIP_INSTALL) -e '.[helm]' --config-settings editable_mode=strict
	touch $@

$(TEST_STAMP): pyproject.toml | $(BIN)/python
	rm -f $(VENV)/.installed-*
	$(PIP_INSTALL) -e '.[test]' --config-settings editable_mode=strict
	touch $@ $(RUN_STAMP)

install: $(RUN_STAMP)

# Findings make k8slb exit 1; the demo shows them and only fails on exit 2 (a broken run).
demo: $(RUN_STAMP)
	@echo "== k8slb check fixtures/demo"
	@$(BIN)/k8slb check fixtures/demo; rc=$$?; test $$rc -le 1
	@echo
	@echo "== k8slb explain-links fixtures/demo/bad  (which code runs in which container, and why)"
	@$(BIN)/k8slb explain-links fixtures/demo/bad
	@echo
	@echo "== k8slb fix --diff --unsafe-fixes fixtures/demo/bad  (nothing is written)"
	@$(BIN)/k8slb fix --diff --unsafe-fixes fixtures/demo/bad; rc=$$?; test $$rc -le 1
	@echo
	@echo "== k8slb check fixtures/helm  (a chart, rendered with Helm's engine: template lines and values)"
	@$(BIN)/k8slb check fixtures/helm; rc=$$?; test $$rc -le 1

lint: $(TEST_STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy -p k8slb
	$(BIN)/mypy scripts  # the benches: not run by the tests, so typed here

test: lint
	$(BIN)/python -m pytest

# Precision and recall on the real-world corpus, per rule (tests/real_corpus/evaluate.py
# says where the copies are read from: K8SLB_REAL_CORPUS, else ../shared/corpus/traffic).
eval: $(RUN_STAMP)
	$(BIN)/python -m tests.real_corpus.evaluate $(CORPUS)

# A held-out set (tests/held_out/README.md), scored before any rule is changed for it:
# precision strict and lenient, recall with its misses, per rule, for charts and apps; the
# findings no label judges are listed. Copies: HELD_OUT_CORPUS, else K8SLB_HELD_OUT_CORPUS,
# else ../fresh-corpus. A graduated round (tests/real_corpus/rounds/<day>) is scored the same way.
HELD_OUT ?= tests/held_out/2026-12-05-round6
eval-held-out: $(RUN_STAMP)
	$(BIN)/python -m tests.real_corpus.evaluate --held-out $(HELD_OUT) $(HELD_OUT_CORPUS)

# k8slb against the parse floor on a generated monorepo (N services); prints ratios.
N ?= 2000
bench: $(RUN_STAMP)
	$(BIN)/python -m compileall -q build  # byte-compiled, as an installed package is
	$(BIN)/python scripts/bench.py $(N)

# `k8slb fix` on one long stream at D and 2D documents; prints the time ratio (linear: 2).
D ?= 10000
bench-fix: $(RUN_STAMP)
	$(BIN)/python -m compileall -q build
	$(BIN)/python scripts/bench_fix.py $(D)

# The check against the parse floor in instructions (valgrind): the ratio that does not
# swing with the machine's load. Slow (N=2000: some ten minutes).
bench-count: $(RUN_STAMP)
	$(BIN)/python -m compileall -q build
	$(BIN)/python scripts/bench_count.py $(N)

# docs/rules/ is generated from the rules' docstrings (a test fails when it is stale).
docs: $(RUN_STAMP)
	$(BIN)/python -m k8slb.report.docs docs/rules

clean:
	rm -rf $(VENV) build *.egg-info linter/reading/_yamltree.*.so
