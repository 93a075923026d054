# common.sh: sourced by run.sh and test.sh: installs the Debian packages wick needs when they are
# missing (through sudo only when not root), and configures + builds one build directory.

WICK_PACKAGES=(cmake gcc libc6-dev make pkg-config python3 python3-venv libopenblas-dev libopenblas-openmp-dev
    libjansson-dev libutf8proc-dev)

# wick_install_packages [extra packages...]: apt-get update + install of whatever is not installed yet.
wick_install_packages() {
    local wanted=("${WICK_PACKAGES[@]}" "$@") missing=() p
    if ! command -v dpkg-query >/dev/null 2>&1; then
        echo "wick: not a Debian system; make sure these are installed: ${wanted[*]}" >&2
        return 0
    fi
    for p in "${wanted[@]}"; do
        [ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" = "install ok installed" ] || missing+=("$p")
    done
    if [ ${#missing[@]} -eq 0 ]; then
        echo "wick: packages present: ${wanted[*]}"
        return 0
    fi
    local sudo=()
    if [ "$(id -u)" -ne 0 ]; then
        if ! command -v sudo >/dev/null 2>&1; then
            echo "wick: need root or sudo to install: ${missing[*]}" >&2
            return 1
        fi
        sudo=(sudo)
    fi
    echo "wick: installing ${missing[*]}"
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update </dev/null
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" </dev/null
}

# wick_build DIR BUILD_TYPE [cmake args...]: configure and build with every core.
wick_build() {
    local dir=$1 type=$2
    shift 2
    cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE="$type" "$@"
    cmake --build "$dir" -j "$(nproc)"
}
