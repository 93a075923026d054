# Thin wrapper over CMake: `make`, `make test`, `make asan`, `make install PREFIX=...`.
BUILD ?= build
PREFIX ?= /usr/local
JOBS ?= $(shell nproc)

.PHONY: all test asan install clean
all:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release
	cmake --build $(BUILD) -j $(JOBS)
test: all
	cd $(BUILD) && ctest --output-on-failure
asan:
	cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DWICK_SANITIZE=ON
	cmake --build build-asan -j $(JOBS)
	cd build-asan && ctest --output-on-failure
install: all
	cmake --install $(BUILD) --prefix $(PREFIX)
clean:
	rm -rf $(BUILD) build-asan
