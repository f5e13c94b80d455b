# Two set-up-free entry points: `make demo` and `make test` (both create .venv as needed).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

# The editable install maps the `k8slb` package onto linter/ and rules/ themselves
# (setuptools' default, lenient mode), so a module added there is imported at once, by the
# tests and by the command alike; mypy, which cannot follow that import hook, reads the same
# folders through .mypy-view/ (two links to them, made below, named in pyproject's mypy_path).
# Only what the install itself builds asks for a new one: pyproject, and the C builder
# (native/), which the install compiles.
NATIVE_HASH := $(shell cat setup.py native/*.c native/*.h native/libyaml/* 2>/dev/null | cksum | cut -d' ' -f1)
RUN_STAMP := $(VENV)/.installed-run-lenient-$(NATIVE_HASH)
TEST_STAMP := $(VENV)/.installed-test-lenient-$(NATIVE_HASH)
PIP_INSTALL := $(BIN)/python -m pip install -q --disable-pip-version-check

.PHONY: demo test lint install docs eval eval-held-out bench bench-fix bench-count bench-incremental clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(RUN_STAMP): pyproject.toml | $(BIN)/python
	rm -f $(VENV)/.installed-run-*
	$(PIP_INSTALL) -e '.[helm]'
	touch $@

$(TEST_STAMP): pyproject.toml | $(BIN)/python
	rm -f $(VENV)/.installed-*
	$(PIP_INSTALL) -e '.[test]'
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

# mypy's view of the package: k8slb is linter/, k8slb.rules is rules/ (links to the
# folders, never to files, so that it does not go stale)
.mypy-view/package/k8slb .mypy-view/rules/k8slb/rules:
	mkdir -p .mypy-view/package .mypy-view/rules/k8slb
	ln -sfn ../../linter .mypy-view/package/k8slb
	ln -sfn ../../../rules .mypy-view/rules/k8slb/rules

lint: $(TEST_STAMP) .mypy-view/package/k8slb .mypy-view/rules/k8slb/rules
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy -p k8slb -p k8slb.rules
	$(BIN)/mypy scripts  # the benches: not run by the tests, so typed here

# every core (-n auto); the runtime proofs (marker `proof`) one after the other on one of
# them (tests/conftest.py). PYTEST_ARGS adds to it: PYTEST_ARGS='-m "not proof"' skips them.
test: lint
	$(BIN)/python -m pytest -n auto --dist loadgroup $(PYTEST_ARGS)

# Precision and recall on the real-world corpus, per rule (tests/real_corpus/evaluate.py
# says where the copies are read from: K8SLB_REAL_CORPUS, else ../shared/corpus/traffic).
eval: $(RUN_STAMP)
	$(BIN)/python -m tests.real_corpus.evaluate $(CORPUS)

# A held-out set (tests/held_out/README.md), scored before any rule is changed for it:
# precision strict and lenient, recall with its misses, per rule, for charts and apps; the
# findings no label judges are listed. Copies: HELD_OUT_CORPUS, else K8SLB_HELD_OUT_CORPUS,
# else ../fresh-corpus. A graduated round (tests/real_corpus/rounds/<day>) is scored the same way.
HELD_OUT ?= tests/held_out/2026-12-06-round20
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

# `check .` after one file changed against the unchanged tree's, both warm, and the
# pre-commit hook, on a generated monorepo (S services; 3050: some 10,000 files).
S ?= 3050
bench-incremental: $(RUN_STAMP)
	$(BIN)/python -m compileall -q build
	$(BIN)/python scripts/bench_incremental.py $(S)

# docs/rules/ is generated from the rules' docstrings (a test fails when it is stale).
docs: $(RUN_STAMP)
	$(BIN)/python -m k8slb.report.docs docs/rules

clean:
	rm -rf $(VENV) build *.egg-info .mypy-view linter/reading/_yamltree.*.so
