#!/usr/bin/env bash
# run.sh: the main job. Installs missing Debian packages, builds wick (Release, in build/), then shows the
# build and the devices and runs `wick check` and `wick bench --quick` on every device found.
# Usage: scripts/run.sh [--numpy]   (--numpy also installs python3-numpy and runs bench/cpu_vs_numpy.py)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/common.sh

numpy=0
for arg in "$@"; do
    case $arg in
    --numpy) numpy=1 ;;
    *) echo "usage: scripts/run.sh [--numpy]" >&2; exit 2 ;;
    esac
done
build_dir=${BUILD_DIR:-build}

if [ $numpy = 1 ]; then wick_install_packages python3-numpy; else wick_install_packages; fi
wick_build "$build_dir" Release
wick=$build_dir/wick

echo "== wick info" && "$wick" info
echo "== wick devices" && "$wick" devices
# Every device found (the CPU where there is no GPU); failed cases are listed, then the summary.
status=0
echo "== wick check" && "$wick" check --quiet || status=1
echo "== wick bench --quick" && "$wick" bench --quick || status=1
if [ $numpy = 1 ]; then
    echo "== bench/cpu_vs_numpy.py" && /usr/bin/python3 bench/cpu_vs_numpy.py --lib "$build_dir/libwick.so" || status=1
fi
exit $status
