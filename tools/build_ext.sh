#!/bin/sh
# Builds the Python extension (release) into the virtualenv $1. With PGO=1, profile-guided: where
# this Rust toolchain has llvm-profdata (rustup's llvm-tools component, added if missing), an
# instrumented build runs tools/pgo_train.py and the final build uses the merged profile; a
# toolchain without llvm-profdata builds without it (one line says so). PGO changes only speed: the
# results are identical either way (tests/test_golden.py). BENCHMARKS.md has the numbers.
set -eu
venv=$1
export VIRTUAL_ENV="$venv" PATH="$venv/bin:$PATH"
pgo_dir="$PWD/target/pgo"

profdata_tool() {
    find "$(rustc --print sysroot)/lib/rustlib" -name llvm-profdata -type f 2>/dev/null | head -n 1
}

profile=""
if [ "${PGO:-0}" = 1 ]; then
    tool=$(profdata_tool)
    if [ -z "$tool" ] && command -v rustup >/dev/null 2>&1; then
        timeout 120 rustup component add llvm-tools >/dev/null 2>&1 || true
        tool=$(profdata_tool)
    fi
    if [ -n "$tool" ]; then
        rm -rf "$pgo_dir/raw"
        mkdir -p "$pgo_dir/raw"
        if RUSTFLAGS="-Cprofile-generate=$pgo_dir/raw" maturin develop --release \
            && python "$(dirname "$0")/pgo_train.py" \
            && "$tool" merge -o "$pgo_dir/ccarena.profdata" "$pgo_dir/raw"; then
            profile="$pgo_dir/ccarena.profdata"
        else
            echo "pgo: the profiling run failed; building without profile-guided optimisation" >&2
        fi
    else
        echo "pgo: no llvm-profdata for this rustc (rustup component add llvm-tools); building without profile-guided optimisation" >&2
    fi
fi
RUSTFLAGS="${profile:+-Cprofile-use=$profile}" maturin develop --release
