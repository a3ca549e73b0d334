# Thin wrapper: `make demo` and `make test` set up the machine, build, then run.
# SAN=1 builds with AddressSanitizer + UndefinedBehaviorSanitizer in build-san/.
SAN ?= 0
JOBS ?= 2
ifeq ($(SAN),1)
BUILD ?= build-san
CMAKE_EXTRA := -DCHIPLESS_SANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo
else
BUILD ?= build
CMAKE_EXTRA := -DCMAKE_BUILD_TYPE=Release
endif

.PHONY: all deps configure build demo test clean format

all: build

deps:
	@./scripts/install-deps.sh

configure: deps
	@cmake -S . -B $(BUILD) -G Ninja $(CMAKE_EXTRA) >/dev/null

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

demo: build
	@/usr/bin/python3 scripts/demo.py $(BUILD)

test: build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

format:
	@git ls-files '*.cpp' '*.h' | xargs clang-format -i

clean:
	rm -rf build build-san
