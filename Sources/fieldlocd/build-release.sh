#!/usr/bin/env bash
# Builds the unit's binaries, `fieldlocd` and `fieldloc`, as they are installed on a unit:
#
#   Sources/fieldlocd/build-release.sh [PRODUCT...]      # default: fieldlocd fieldloc
#
# and prints where they are (.build/release/). Three link choices keep a resident daemon small
# (docs in README.md, "Install it on a Pi"; measurements in BENCHMARKS.md, "Memory"):
#
# * `--static-swift-stdlib`: the Swift runtime and Foundation are linked in, so only the pages the
#   daemon uses are resident, instead of whole shared libraries (libswiftCore, Foundation, ICU);
#   the unit needs no Swift toolchain.
# * `-no-pie`: a position-dependent executable. A position-independent one has its constant data
#   relocated at every start (`.data.rel.ro`: Swift's metadata holds absolute pointers), which turns
#   about 1 MiB of file pages into private anonymous memory; at a fixed address they stay clean file
#   pages that the kernel can drop and share.
# * libstdc++ linked statically: the Swift runtime uses a few of its functions, and the shared
#   library is otherwise about 1.4 MiB resident. The toolchain's static-stdlib link names `-lstdc++`,
#   so a folder holding only `libstdc++.a` is put first on the library path.
#
# Address-space randomisation of the executable's own image is what `-no-pie` gives up (shared
# libraries, heap and stacks are still randomised); set FIELDLOC_PIE=1 to keep a PIE build.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
cd "$here"
products=("$@")
[ ${#products[@]} -gt 0 ] || products=(fieldlocd fieldloc)

flags=(-c release --static-swift-stdlib)
if [ "${FIELDLOC_PIE:-0}" != 1 ]; then
    flags+=(-Xlinker -no-pie)
fi
cxx=$( (g++ -print-file-name=libstdc++.a || gcc -print-file-name=libstdc++.a) 2> /dev/null || true)
if [ -n "$cxx" ] && [ -f "$cxx" ]; then
    mkdir -p .build/static-libstdc++
    ln -sf "$cxx" .build/static-libstdc++/libstdc++.a
    flags+=(-Xlinker -L"$here/.build/static-libstdc++")
else
    echo "build-release: libstdc++.a not found (apt install libstdc++-12-dev); linking the shared libstdc++" >&2
fi
for product in "${products[@]}"; do
    swift build "${flags[@]}" --product "$product"
done
bin=$(swift build "${flags[@]}" --show-bin-path)
for product in "${products[@]}"; do echo "$bin/$product"; done
