#!/usr/bin/env bash
# Installs what building, testing and benchmarking vkstat needs, and nothing
# that is already there. As root it runs apt-get; otherwise it prints the
# command to run and fails.
#
#   scripts/deps.sh build   gcc, the Vulkan and GDAL headers (cgo), the loader and lavapipe, and
#                           libshaderc-dev, glslang-dev, spirv-tools: the static libraries that
#                           vkstat shader compiles GLSL with (linked in, nothing needed at run time),
#                           and libvkfft-dev (VkFFT's header; its shaders are compiled with that glslang)
#   scripts/deps.sh test    build + the validation layer, glslc, spirv-val, the GDAL
#                           tools (gdal_translate, gdalinfo: the raster round-trip tests),
#                           and slurm-wlm and munge (scripts/test-slurm.sh: a one-node
#                           Slurm cluster for vkstat survey's shards), and python3-numpy,
#                           python3-pytest and python3-venv (the Python package's tests,
#                           and its wheel installed into a venv)
#   scripts/deps.sh bench   build + NumPy for the peer scripts
#   scripts/deps.sh ci      test + staticcheck
#   scripts/deps.sh swiftshader-icd
#                           prints the SwiftShader ICD file (Google's
#                           software Vulkan, a second CPU device without
#                           float64), fetching it first if needed
#
# test and ci also fetch SwiftShader: only its ICD and library (5 MB) are
# unpacked from Debian's chromium-common into ~/.cache/vkstat/swiftshader
# (VKSTAT_CACHE overrides the folder), without installing Chromium. Add it
# to the drivers the loader finds with
#   export VK_ADD_DRIVER_FILES=$(scripts/deps.sh swiftshader-icd)
set -euo pipefail
what=${1:-build}
cache=${VKSTAT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/vkstat}
swiftshader_icd=$cache/swiftshader/vk_swiftshader_icd.json

# fetch_swiftshader unpacks libvk_swiftshader.so and its ICD file from the
# chromium-common package into $cache/swiftshader.
fetch_swiftshader() {
	[ -f "$swiftshader_icd" ] && [ -f "$(dirname "$swiftshader_icd")/libvk_swiftshader.so" ] && return 0
	if ! command -v apt-get >/dev/null; then
		echo "SwiftShader: no apt-get; unpack libvk_swiftshader.so and vk_swiftshader_icd.json from your distribution's Chromium into $(dirname "$swiftshader_icd")" >&2
		return 1
	fi
	local tmp
	tmp=$(mktemp -d)
	# shellcheck disable=SC2064
	trap "rm -rf '$tmp'" RETURN
	echo "fetching SwiftShader (chromium-common's Vulkan ICD) into $(dirname "$swiftshader_icd")" >&2
	if ! (cd "$tmp" && apt-get download -qq chromium-common >/dev/null 2>&1); then
		[ "$(id -u)" = 0 ] && apt-get update -qq
		(cd "$tmp" && apt-get download -qq chromium-common >/dev/null) || {
			echo "SwiftShader: apt-get download chromium-common failed" >&2
			return 1
		}
	fi
	dpkg-deb --fsys-tarfile "$tmp"/chromium-common_*.deb |
		tar -x -C "$tmp" ./usr/lib/chromium/libvk_swiftshader.so ./usr/lib/chromium/vk_swiftshader_icd.json
	mkdir -p "$(dirname "$swiftshader_icd")"
	cp "$tmp/usr/lib/chromium/libvk_swiftshader.so" "$tmp/usr/lib/chromium/vk_swiftshader_icd.json" "$(dirname "$swiftshader_icd")/"
}

if [ "$what" = swiftshader-icd ]; then
	fetch_swiftshader >&2
	echo "$swiftshader_icd"
	exit 0
fi
pkgs=(gcc g++ libc6-dev pkg-config libvulkan-dev libvulkan1 mesa-vulkan-drivers libshaderc-dev glslang-dev spirv-tools libvkfft-dev libgdal-dev)
case "$what" in
build) ;;
test) pkgs+=(vulkan-validationlayers glslc spirv-tools gdal-bin slurm-wlm munge python3-numpy python3-pytest python3-venv python3-dask python3-distributed python3-xarray) ;;
bench) pkgs+=(python3-numpy) ;;
ci) pkgs+=(vulkan-validationlayers glslc spirv-tools gdal-bin python3-numpy slurm-wlm munge python3-pytest python3-venv python3-dask python3-distributed python3-xarray) ;;
*) echo "usage: $0 build|test|bench|ci|swiftshader-icd" >&2; exit 2 ;;
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

# Go 1.24 or newer; Go 1.21 to 1.23 fetch the 1.24 toolchain that go.mod
# asks for by themselves (unless GOTOOLCHAIN=local). Debian 12's golang-go
# is 1.19, older: then this prints how to install Go from go.dev.
gov=$(go env GOVERSION 2>/dev/null || true)
minor=$(sed -n 's/^go1\.\([0-9]*\).*/\1/p' <<<"$gov")
if [ -z "$minor" ] || [ "$minor" -lt 21 ] || { [ "$minor" -lt 24 ] && [ "$(go env GOTOOLCHAIN)" = local ]; }; then
	arch=$(dpkg --print-architecture 2>/dev/null || echo amd64)
	cat >&2 <<EOF
vkstat needs Go 1.24 or newer (found: ${gov:-no go on PATH}; Debian 12's golang-go is 1.19).
Install Go from go.dev into /usr/local/go and put it on PATH:
  curl -fsSL https://go.dev/dl/go1.24.0.linux-$arch.tar.gz | sudo tar -C /usr/local -xz
  export PATH=\$PATH:/usr/local/go/bin    # and add this line to ~/.profile
EOF
	exit 1
fi

case "$what" in test | ci) fetch_swiftshader ;; esac

if [ "$what" = ci ] && ! command -v staticcheck >/dev/null && [ ! -x "$(go env GOPATH)/bin/staticcheck" ]; then
	echo "installing staticcheck" >&2
	go install honnef.co/go/tools/cmd/staticcheck@v0.8.2
fi
exit 0
