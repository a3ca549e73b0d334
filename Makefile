# Thin wrapper: `make demo` and `make test` set up the machine, build, then run.
# SAN=1 builds with clang-19, AddressSanitizer + UndefinedBehaviorSanitizer and libFuzzer's
# coverage instrumentation in build-san/ (assertions on, line tables for the reports); the
# libFuzzer harnesses of tests/fuzz are built there too.
SAN ?= 0
JOBS ?= 2
SAN_BUILD := build-san
SAN_CMAKE := -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 \
  -DCHIPLESS_SANITIZE=ON -DCHIPLESS_FUZZ=ON -DCHIPLESS_BENCH=OFF \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -gline-tables-only" \
  "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O2 -gline-tables-only"
ifeq ($(SAN),1)
BUILD ?= $(SAN_BUILD)
CMAKE_EXTRA := $(SAN_CMAKE)
else
BUILD ?= build
CMAKE_EXTRA := -DCMAKE_BUILD_TYPE=Release
endif

# make fuzz: each libFuzzer harness for FUZZ_RUNS inputs, or FUZZ_SECONDS each when given
# (FUZZERS="fuzz_npy fuzz_arch" for some only); the corpus grows in build-san/fuzz/.
# FUZZ_WORKERS=2 fuzzes each harness with two processes over one corpus, FUZZ_RUNS between them.
FUZZ_RUNS ?= 1000000
FUZZ_SECONDS ?=
FUZZ_WORKERS ?= 1
FUZZERS ?=
CTEST_ARGS ?=

.PHONY: all deps configure build demo test fuzz-build fuzz-smoke fuzz studies clean format

all: build

deps:
	@./scripts/install-deps.sh

configure: deps
	@cmake -S . -B $(BUILD) -G Ninja $(CMAKE_EXTRA) >/dev/null

# The normal build also puts `chipless` on the PATH and the package on python3's path.
build: configure
	@cmake --build $(BUILD) -j $(JOBS)
ifneq ($(SAN),1)
	@./scripts/install-python.sh $(BUILD)
endif

demo: build
	@CHIPLESS_BIN=$(abspath $(BUILD))/bin /usr/bin/python3 scripts/demo_torch.py
	@/usr/bin/python3 scripts/demo.py $(BUILD)

# The whole suite; without SAN=1 also the fuzzing smoke run (the SAN=1 suite has it).
test: build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS) $(CTEST_ARGS)
ifneq ($(SAN),1)
	@$(MAKE) --no-print-directory fuzz-smoke
endif

# The libFuzzer harnesses, in the SAN=1 tree.
fuzz-build: deps
	@cmake -S . -B $(SAN_BUILD) -G Ninja $(SAN_CMAKE) >/dev/null
	@cmake --build $(SAN_BUILD) -j $(JOBS) --target fuzzers

# Every crash input once, then a few seconds of fuzzing per harness (ctest -L fuzz).
fuzz-smoke: fuzz-build
	@cd $(SAN_BUILD) && ctest --output-on-failure -j $(JOBS) -L fuzz

fuzz: fuzz-build
	@/usr/bin/python3 tests/fuzz/run_fuzzers.py --build-dir $(SAN_BUILD) --source-dir . \
	  --work $(SAN_BUILD)/fuzz --examples-dir ../shared/ktir-examples --jobs $(JOBS) \
	  --workers $(FUZZ_WORKERS) $(if $(FUZZ_SECONDS),--seconds $(FUZZ_SECONDS),--runs $(FUZZ_RUNS)) $(FUZZERS)

# The bundled studies (scenarios/*.yaml), their reports regenerated under docs/studies/.
studies: build
	@/usr/bin/python3 scripts/regenerate_studies.py --build-dir $(BUILD)

format:
	@git ls-files '*.cpp' '*.h' | xargs clang-format -i

clean:
	rm -rf build build-san
