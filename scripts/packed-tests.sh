#!/usr/bin/env bash
# Runs test packages as scripts/gpu-run.sh runs them on a GPU machine: each
# built as a packed test binary (go test -c -tags nogdal) and run from a
# copy of the testdata it reads, outside the source tree, with no go on
# PATH, SwiftShader as the only Vulkan driver (VK_DRIVER_FILES: no
# lavapipe) and CI=true (a missing Vulkan device fails). A test that needs
# lavapipe by name, go, GDAL or the source tree must pass there anyway or
# skip saying what a packed binary lacks (issue 34, defect 9).
#
#   scripts/packed-tests.sh [-run RE] [-skip RE] [-v] [PKG...]   default: capi cli
# (-run, -skip and -v are go test's). CI runs it once, less cli's TestBench
# and TestVerify (6 minutes on SwiftShader; vkstat verify --device all runs
# there anyway).
set -euo pipefail
cd "$(dirname "$0")/.."
flags=()
while [ $# -gt 0 ]; do
	case $1 in
	-run | -skip) flags+=("-test.${1#-}" "$2") && shift 2 ;;
	-v) flags+=(-test.v) && shift ;;
	*) break ;;
	esac
done
pkgs=("$@")
[ ${#pkgs[@]} -gt 0 ] || pkgs=(capi cli)

icd=$(scripts/deps.sh swiftshader-icd)
dist=$(mktemp -d)
trap 'rm -rf "$dist"' EXIT
for rel in "${pkgs[@]}"; do
	mkdir -p "$dist/tests/$rel"
	go test -c -tags nogdal -o "$dist/tests/$rel/$(basename "$rel").test" "./$rel"
	[ -d "$rel/testdata" ] && cp -r "$rel/testdata" "$dist/tests/$rel/"
done
# What the packed tests read beside their package, as gpu-run.sh packs it.
cp -r testdata examples "$dist/tests/"
mkdir -p "$dist/tests/shaders" && cp -r shaders/*.comp shaders/include shaders/variants.txt shaders/spv "$dist/tests/shaders/"

# PATH without go.
path=
IFS=: read -ra dirs <<<"$PATH"
for d in "${dirs[@]}"; do
	[ -x "$d/go" ] || path=${path:+$path:}$d
done

rc=0
for rel in "${pkgs[@]}"; do
	echo "== $rel (packed, SwiftShader only, no go)"
	(cd "$dist/tests/$rel" && env -u VK_ADD_DRIVER_FILES -u VK_ICD_FILENAMES PATH="$path" VK_DRIVER_FILES="$icd" \
		CI=true VKSTAT_TEST_VULKAN=1 "./$(basename "$rel").test" -test.short -test.timeout 20m "${flags[@]}") || rc=1
done
exit $rc
