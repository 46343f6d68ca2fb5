#!/usr/bin/env bash
# Installs what building, testing and benchmarking vkstat needs, and nothing
# that is already there. As root it runs apt-get; otherwise it prints the
# command to run and fails.
#
#   scripts/deps.sh build   gcc and the Vulkan headers (cgo), the loader and lavapipe, and
#                           libshaderc-dev, glslang-dev, spirv-tools: the static libraries that
#                           vkstat shader compiles GLSL with (linked in, nothing needed at run time)
#   scripts/deps.sh test    build + the validation layer, glslc and spirv-val
#   scripts/deps.sh bench   build + NumPy for the peer scripts
#   scripts/deps.sh ci      test + staticcheck
set -euo pipefail
what=${1:-build}
pkgs=(gcc g++ libc6-dev libvulkan-dev libvulkan1 mesa-vulkan-drivers libshaderc-dev glslang-dev spirv-tools)
case "$what" in
build) ;;
test) pkgs+=(vulkan-validationlayers glslc spirv-tools) ;;
bench) pkgs+=(python3-numpy) ;;
ci) pkgs+=(vulkan-validationlayers glslc spirv-tools python3-numpy) ;;
*) echo "usage: $0 build|test|bench|ci" >&2; exit 2 ;;
esac

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
	if ! command -v apt-get >/dev/null; then
		echo "vkstat needs: ${missing[*]} (Debian/Ubuntu package names); install them with your package manager" >&2
		exit 1
	fi
	if [ "$(id -u)" != 0 ]; then
		echo "vkstat needs these packages; run:" >&2
		echo "  sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
		exit 1
	fi
	echo "installing: ${missing[*]}" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if ! command -v go >/dev/null; then
	echo "vkstat needs Go 1.24 or newer: https://go.dev/doc/install" >&2
	exit 1
fi

if [ "$what" = ci ] && ! command -v staticcheck >/dev/null && [ ! -x "$(go env GOPATH)/bin/staticcheck" ]; then
	echo "installing staticcheck" >&2
	go install honnef.co/go/tools/cmd/staticcheck@v0.8.2
fi
exit 0
