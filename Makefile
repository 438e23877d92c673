# frcli developer tasks. `make install` builds the Cython kernels; `make test` is CI's command.
PYTHON ?= python3

.PHONY: install build test test-plain test-all bench bench-relational bench-scaling bench-ssl bench-ssl-forests bench-mex bench-dask reproduce reproduce-check reproduce-estimate canaries lint clean

# The build requirements go into the environment too, so `make build` works after it.
install:
	$(PYTHON) -m pip install "setuptools>=77" wheel "Cython>=3.0"
	$(PYTHON) -m pip install -e ".[test,bench,dask,parquet,stan]"

# Rebuild the kernels in place after editing ext/*.pyx or ext/<family>/*.pyx (FRCLI_EXT=_relief
# for one module).
build:
	$(PYTHON) setup.py build_ext --inplace -q

test:
	$(PYTHON) -m pytest

# The command-line tests, for CI's second environment: a plain `pip install .` (no extras)
# plus pytest. They import the installed package (-I: not the checkout; importlib mode: a
# dependency's top-level `tests` package cannot shadow ours); FRCLI_CATALOG points the
# installed package at the checkout's catalog and data.
PLAIN_TESTS = tests/cli/test_cli.py tests/cli/test_ux_errors.py tests/cli/test_datasets_cli.py \
	tests/cli/test_hardening.py tests/cli/test_fuzz.py tests/stats/test_stats_cli.py \
	tests/experiment/test_experiment_config.py tests/experiment/test_experiment_run.py \
	tests/results/test_experiment_store.py tests/results/test_store_safety.py \
	tests/data/test_data_load.py tests/data/test_data_screen.py
test-plain:
	FRCLI_CATALOG=$(CURDIR)/configs/datasets.yaml $(PYTHON) -I -m pytest \
		--import-mode=importlib -p no:cacheprovider $(PLAIN_TESTS)

# Includes the tests marked slow (whole benchmark sets, long runs).
test-all:
	FRCLI_SLOW=1 $(PYTHON) -m pytest

bench:
	$(PYTHON) bench/run_all.py

# ReliefE vs the authors' package and skrebate (docs/benchmarks.md "## ReliefE" and its
# figure). reliefe pins scipy 1.6 / scikit-learn 0.24, so it goes in without its dependencies
# (numba and umap-learn come with frcli). Run it on a quiet machine.
bench-reliefe:
	$(PYTHON) -m pip install -q skrebate liac-arff
	$(PYTHON) -m pip install -q --no-deps reliefe
	nice -n 10 $(PYTHON) bench/bench_reliefe.py --repeat 3
	nice -n 10 $(PYTHON) bench/bench_reliefe.py --split

# Relational forests vs re3py, the authors' package (docs/benchmarks.md "## Relational
# forests (re3py)"). On mutagenesis re3py grows 1 tree (its time scaled to 50, marked) and is
# killed after 5 minutes (it has not finished one tree in 25): a lower bound.
bench-relational:
	$(PYTHON) -m pip install -q re3py
	nice -n 10 $(PYTHON) bench/bench_relational.py --datasets uwcse,mutagenesis --trees 50 --re3py-trees mutagenesis=1 --timeout mutagenesis=300

# Forest vs scikit-learn at 4k-128k rows, bibtex/delicious, exact vs approximate Relief
# (docs/benchmarks.md "## Scaling" and docs/figures/scaling.png). About an hour on a quiet
# 2-core machine with the default 100 trees; ARGS="--trees 20" for a quicker run.
bench-scaling:
	nice -n 10 $(PYTHON) bench/bench_scaling.py $(ARGS)

# SSL-Relief tuning vs one untuned run, and the P-UNS study's ranking time
# (docs/benchmarks.md "## Semi-supervised and unsupervised"). About 20 minutes on a quiet
# 2-core machine; ARGS="--sets colon,GLIOMA" for a quicker run.
bench-ssl:
	nice -n 10 $(PYTHON) bench/bench_ssl.py $(ARGS)

# Semi-supervised forests per (fold, L) of P-DS / P-ML against a reference build:
# REF=DIR, a checkout whose frcli is built (e.g. main before a change), REF_NAME its name.
bench-ssl-forests:
	nice -n 10 $(PYTHON) bench/bench_ssl_forests.py --reference $(REF) --reference-name "$(REF_NAME)" $(ARGS)

# Mars Express: simulate and build a four-year mission, G-RF at Δt = 60 and 15 (docs/
# benchmarks.md "## Mars Express (thesis Ch. 8)"). About 20-30 CPU minutes; ARGS="--skip-dt1".
bench-mex:
	nice -n 10 $(PYTHON) bench/bench_mex.py $(ARGS)

# One experiment (a subset of mtr-ensembles) in one process and through --dask-scheduler on a
# local cluster of 2 worker processes, alternating; wall and CPU time, identical stores
# (docs/benchmarks.md "## Experiments on a Dask cluster"). About 10 minutes; ARGS="--repeat 1".
bench-dask:
	nice -n 10 $(PYTHON) bench/bench_dask.py $(ARGS)

# Every generated section of docs/reproduction.md (resumable; see reproduce/README.md): from
# the persisted stores of reproduce/stores, computing only what the fingerprint invalidated.
JOBS ?= 2
reproduce:
	$(PYTHON) -m reproduce --jobs $(JOBS)

# CI's staleness check: fingerprint, stamps, every section re-rendered from the stores.
reproduce-check:
	$(PYTHON) -m reproduce --check --jobs $(JOBS)

# One-core hours of every study on all of its shared data sets (reads the stores only).
reproduce-estimate:
	$(PYTHON) -m reproduce --estimate

# The canary suite's digests of this build (OUT=file; `--list` shows the paths).
canaries:
	$(PYTHON) reproduce/canaries.py --jobs $(JOBS) $(if $(OUT),--out $(OUT))

lint:
	$(PYTHON) -m ruff check frcli tests bench reproduce

clean:
	rm -rf build dist *.egg-info ext/*.c ext/*.so ext/*.html
