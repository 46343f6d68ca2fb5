#!/usr/bin/env bash
# Compiles every variant listed in variants.txt into OUT (default spv/) with
# glslc, optimises it with spirv-opt and validates it with spirv-val. Run
# from anywhere; `make shaders` calls it, and `make check-shaders` builds
# into a temporary folder and compares with the committed files.
#
# glslc -O would strip the names. glslc -O0 followed by spirv-opt -O gives
# the same code (the same words, once spirv-opt --strip-debug takes the
# names out again) and keeps the names of the blocks and their members:
# the engine reads them to write push constants by name.
set -euo pipefail
cd "$(dirname "$0")"
out=${1:-spv}
mkdir -p "$out"
for tool in glslc spirv-opt spirv-val; do
	command -v $tool >/dev/null || { echo "shaders: $tool not found (Debian/Ubuntu: apt-get install glslc spirv-tools)" >&2; exit 1; }
done
while read -r name src defines; do
	case "$name" in ''|'#'*) continue ;; esac
	# shellcheck disable=SC2086
	glslc --target-env=vulkan1.1 -O0 -fshader-stage=compute $defines -o "$out/$name.spv" "$src"
	spirv-opt --target-env=vulkan1.1 -O "$out/$name.spv" -o "$out/$name.spv"
	spirv-val --target-env vulkan1.1 "$out/$name.spv"
done < variants.txt
