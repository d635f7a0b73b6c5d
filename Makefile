# Two commands on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
SCALE ?= 19
# On a machine with an NVIDIA driver, also install CuPy so `make demo` runs on the GPU.
EXTRAS := mpich,test,bench$(shell command -v nvidia-smi >/dev/null 2>&1 && echo ,gpu)

.PHONY: demo test test-gpu lint bench clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[$(EXTRAS)]'
	touch $@

demo: $(VENV)/.installed
	$(VENV)/bin/spbfs graph500 --scale $(SCALE) --device auto

test: $(VENV)/.installed
	PATH=$(CURDIR)/$(VENV)/bin:$$PATH $(PY) -m ruff check spbfs tests benchmarks
	PATH=$(CURDIR)/$(VENV)/bin:$$PATH $(PY) -m pytest -q

# GPU tests only (run on a machine with a CUDA GPU and CuPy installed).
test-gpu:
	$(PYTHON) -m pytest -q -m gpu tests

bench: $(VENV)/.installed
	$(PY) benchmarks/bench_cpu.py

clean:
	rm -rf $(VENV) build *.egg-info
