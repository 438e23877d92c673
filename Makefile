# frcli developer tasks. `make install` builds the Cython kernels; `make test` is CI's command.
PYTHON ?= python3

.PHONY: install build test test-all bench reproduce lint clean

# The build requirements go into the environment too, so `make build` works after it.
install:
	$(PYTHON) -m pip install "setuptools>=77" wheel "Cython>=3.0"
	$(PYTHON) -m pip install -e ".[test,bench,dask,parquet]"

# Rebuild the kernels in place after editing ext/*.pyx (FRCLI_EXT=_relief for one module).
build:
	$(PYTHON) setup.py build_ext --inplace -q

test:
	$(PYTHON) -m pytest

# Includes the tests marked slow (whole benchmark sets, long runs).
test-all:
	FRCLI_SLOW=1 $(PYTHON) -m pytest

bench:
	$(PYTHON) bench/run_all.py

# Every generated section of docs/reproduction.md (resumable; see reproduce/README.md).
JOBS ?= 2
reproduce:
	$(PYTHON) -m reproduce --jobs $(JOBS)

lint:
	$(PYTHON) -m ruff check frcli tests bench reproduce

clean:
	rm -rf build dist *.egg-info ext/*.c ext/*.so ext/*.html
