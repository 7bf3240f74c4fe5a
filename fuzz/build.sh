#!/usr/bin/env bash
# Builds .build/fuzz/hearthloom-fuzz: every harness in fuzz/Harnesses linked into one libFuzzer
# binary (HEARTHLOOM_FUZZ_TARGET picks the harness), so the project is compiled once, not once
# per target.
#
# IngestCore and Adapters are compiled as modules with swiftc directly (not SwiftPM) so that
# they carry coverage instrumentation and AddressSanitizer and can be linked with libFuzzer's
# main; -enable-testing lets the harnesses reach the parsers' internal entry points. Each
# step is skipped when its output is newer than its inputs. The C modules follow
# Package.swift's layout: a system-library folder (module.modulemap + header) is put on the
# search path; a C target (include/ + *.c) gets a generated module map and its .c files
# compiled with clang.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
out="$root/.build/fuzz"
SWIFTC=${SWIFTC:-$(command -v swiftc || echo /opt/swift/usr/bin/swiftc)}
CLANG=${CLANG:-$(dirname "$SWIFTC")/clang}
mkdir -p "$out/obj" "$out/modules" "$out/modulemaps" "$out/gen"
cd "$root"

# Swift optimised as a release build is, so the runs reach far; line tables name the crash.
swift_flags=(-swift-version 6 -O -wmo -gline-tables-only -parse-as-library -enable-testing -sanitize=fuzzer,address -I "$out/modules")
clang_flags=(-O1 -gline-tables-only -fsanitize=address,fuzzer-no-link)
c_objects=()

# Rebuild `output` unless it exists and is newer than every file given after it.
stale() {
    local output=$1; shift
    [ -e "$output" ] || return 0
    [ -n "$(find "$@" -newer "$output" -print -quit 2>/dev/null)" ]
}

for dir in Sources/C*/; do
    name=$(basename "$dir")
    if [ -f "$dir/module.modulemap" ]; then
        swift_flags+=(-I "$root/$dir")
    elif [ -d "$dir/include" ]; then
        mkdir -p "$out/modulemaps/$name"
        printf 'module %s {\n    umbrella "%s"\n    export *\n}\n' "$name" "$root/${dir}include" >"$out/modulemaps/$name/module.modulemap"
        swift_flags+=(-I "$out/modulemaps/$name" -Xcc -I -Xcc "$root/${dir}include")
    fi
    for source in "$dir"*.c; do
        [ -e "$source" ] || continue
        object="$out/obj/$name-$(basename "$source" .c).o"
        if stale "$object" "$dir" "$0"; then
            echo "fuzz build: $source"
            "$CLANG" "${clang_flags[@]}" -I "${dir}include" -I "$dir" -c "$source" -o "$object"
        fi
        c_objects+=("$object")
    done
done

# SwiftPM's `.embedInCode` resources, regenerated the way SwiftPM writes them: one byte array each.
resources="$out/gen/PackageResources.swift"
if stale "$resources" Package.swift Sources/Adapters "$0"; then
    {
        echo "struct PackageResources {"
        for file in $(sed -n 's/.*\.embedInCode("\([^"]*\)").*/\1/p' Package.swift); do
            bytes=$(od -An -v -tu1 "Sources/Adapters/$file" | tr -s ' \n' ',' | sed 's/^,//; s/,$//')
            echo "static let $(basename "$file" | tr '.-' '__'): [UInt8] = [$bytes]"
        done
        echo "}"
    } >"$resources"
fi

# One optimised whole-module compile per project module, into its .swiftmodule and one object
# per source file: -num-threads lets LLVM's code generation use every core, where one object
# per module would leave all but one idle. Usage: build_module NAME DEPENDENCY EXTRA_SOURCE...;
# the module is rebuilt when DEPENDENCY (the stamp of the module it imports) is newer.
build_module() {
    local name=$1 dependency=$2; shift 2
    local sources
    mapfile -t sources < <(find "Sources/$name" -name '*.swift' | sort)
    sources+=("$@")
    local stamp="$out/obj/$name.stamp" objects="$out/obj/$name"
    if stale "$stamp" "Sources/$name" "$dependency" "$@" "$0"; then
        echo "fuzz build: $name (${#sources[@]} files)"
        rm -rf "$objects" && mkdir -p "$objects"
        python3 -c 'import json, sys; print(json.dumps({s: {"object": f"{sys.argv[1]}/{i}.o"} for i, s in enumerate(sys.argv[2:])}))' \
            "$objects" "${sources[@]}" >"$objects.map"
        "$SWIFTC" "${swift_flags[@]}" -num-threads "$(nproc)" -module-name "$name" -emit-module \
            -emit-module-path "$out/modules/$name.swiftmodule" -output-file-map "$objects.map" -c "${sources[@]}"
        touch "$stamp"
    fi
}
build_module IngestCore "$0"
build_module Adapters "$out/obj/IngestCore.stamp" "$resources"

harnesses=(fuzz/Harnesses/*.swift)
binary="$out/hearthloom-fuzz"
if stale "$binary" fuzz/Harnesses "$out/obj" "$0"; then
    echo "fuzz build: ${#harnesses[@]} harnesses"
    # lld, not gold: gold warns about every ASan register helper it cannot export.
    "$SWIFTC" "${swift_flags[@]}" -use-ld=lld -module-name FuzzHarnesses "${harnesses[@]}" \
        "$out"/obj/IngestCore/*.o "$out"/obj/Adapters/*.o "${c_objects[@]}" -o "$binary"
fi
echo "fuzz build: $binary"
