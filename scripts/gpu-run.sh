#!/usr/bin/env bash
# Cross-vendor GPU run: everything vkstat checks and measures on a GPU
# machine, in one command, with no internet there. See docs/gpu.md.
#
#   scripts/gpu-run.sh pack [DIST]     here (with Go and apt): build DIST
#                                      (default out/gpu-dist) and DIST.tar.xz
#   scripts/gpu-run.sh run [options]   there: run everything, write reports
#
# pack builds bin/vkstat and one test binary per package that has tests
# (with the testdata they read), downloads the Vulkan loader and validation
# layer packages, and copies the peer scripts and this script. run, from
# the unpacked DIST (or given --dist DIST, DIST.tar.xz or DIST.tar.gz):
#   1. sets up the Vulkan loader and validation layer from DIST when the
#      machine has none, unpacks the GL vendor-neutral libraries the NVIDIA
#      driver needs into / (and runs ldconfig) when they are missing, and
#      points the loader at the NVIDIA ICD when it is there;
#   2. vkstat devices (table and JSON);
#   2b. vkstat bench --tune: each tunable pipeline's candidates timed on
#      each Vulkan device, the winners stored in $out/tune-cache (or
#      $VKSTAT_TUNE_DIR when set), which every later step reads: verify
#      checks the tuned kernels, bench times them (docs/tune.md);
#   3. the test binaries, with the validation layer on (CI=true: a missing
#      Vulkan device fails rather than skips);
#   4. vkstat --validate verify --device all --json, and a planted-error
#      self-check that must fail;
#   5. vkstat bench --suite all --json --png (with the tuned parameters),
#      and, when the tune step ran, the reduce, cov and chol suites again
#      with the built-in ones (bench-reduce-builtin.json,
#      bench-cov-builtin.json, bench-chol-builtin.json: the same run's
#      before and after);
#   6. the NumPy, PyTorch and CuPy peers on bench's workloads (a workload a
#      peer does not implement, such as CuPy's paco, is reported and
#      skipped), and a Markdown page of ratios (gpu.md);
#   7. the data path (bench/datapath.py): start-up, host↔device bandwidth
#      beside PyTorch's pinned copies, file-to-result reduce against NumPy
#      and PyTorch, peak memory under a --device-memory budget (datapath.md);
#   8. vkstat latent's statistics against PyTorch and NumPy
#      (scripts/bench-latent.sh: N = 64 and 256 latents of [16, 16, 64, 64]
#      on the GPU, N = 2 on any device in a dry run; latent-*.md);
#   8b. e2e: the figure users feel (bench/e2e/run.py, docs/benchmarks/e2e.md):
#      whole vkstat processes on the GPU, input files to output files, against
#      the NumPy scripts doing the same, 3 paired rounds (e2e.md); under a
#      budget map, sum, cov and PACO only;
#   8c. libcall (bench/libcall.py, issue 31): each library call at bench's
#      paper sizes through the CLI and Python, on the GPU and the CPU path,
#      beside PyTorch host→host, with wall, phases and counts; start-up
#      against `vkstat devices` with and without the pipeline caches;
#      --device auto's choice per workload; each target of issue 31 met or
#      missed (libcall.md; rewritten at the end with datapath's link figures);
#   9. paco-time: `vkstat --time paco` three times on a synthetic 252-frame
#      100×100 sequence, per stage, beside `vkstat bench --suite paco` in
#      the same step, its runs' stages printed too (VKSTAT_BENCH_STAGES)
#      (the issue's bench-versus---time gap, 14.0 against 2.85 ms on the
#      H100, which lavapipe does not show).
# Every step runs even when an earlier one failed; summary.txt lists their
# exit statuses and the script exits 1 when any failed.
#
# run options:
#   --dist DIR|TAR   the packed folder or archive (default: this script's folder
#                    when it sits in a packed DIST, else out/gpu-dist)
#   --out DIR        where the reports go (default out/gpu-run-<date>)
#   --size S         bench size, paper (default) or small
#   --repeat N       bench and peer repetitions (default 10)
#   --steps LIST     comma-separated subset of devices,tune,tests,verify,shaders,bench,peers,
#                    datapath,libcall,e2e,latent,paco-time
#   --budget SECONDS the short GPU check (docs/gpu.md): the steps that matter most, in the
#                    order of what is still unmeasured (devices, verify, tune, libcall,
#                    datapath, bench, peers, paco-time, e2e, latent, tests), each stopped at its own cap
#                    (scaled to SECONDS; 420 fits a 15-minute GPU lease) and all of them
#                    within SECONDS; bench times map,reduce,cov,chol, latent N = 64, tests
#                    run -short with the GPU's packages first, as far as time allows. A step
#                    that hits its cap exits 124; one with no time left is listed as skipped
#   --dry-run        rehearse on this machine: any Vulkan device (lavapipe),
#                    small sizes, 3 repetitions, short tests; peers that are not
#                    installed are skipped
# Environment: PYTHON (the Python with PyTorch and CuPy, default python3);
# GPU_RUN_USE_DEBS=1 uses the packed loader and validation layer even when
# the machine has its own; GPU_RUN_ROOT and GPU_RUN_LDCONFIG (default / and
# ldconfig) are where the GL libraries are unpacked and what refreshes the
# linker cache then (a test points them at a scratch folder). run sets the
# NVIDIA driver's shader disk cache on (__GL_SHADER_DISK_CACHE=1, a folder
# of its own under the reports, kept across runs' processes) unless the
# environment says otherwise: docs/gpu.md.
set -uo pipefail

die() { echo "gpu-run: $*" >&2; exit 2; }

here=$(cd "$(dirname "$0")" && pwd)

# The GL vendor-neutral (GLVND) libraries that the NVIDIA Vulkan driver
# loads, as package:library. Without them it answers
# VK_ERROR_INCOMPATIBLE_DRIVER; bare GPU machines lack them.
gl_debs=(libglvnd0:libGLdispatch.so.0 libegl1:libEGL.so.1 libgl1:libGL.so.1
	libglx0:libGLX.so.0 libgles2:libGLESv2.so.2 libopengl0:libOpenGL.so.0)

# ---- pack ---------------------------------------------------------------
pack() {
	local dist=${1:-out/gpu-dist}
	cd "$here/.." || exit 2
	[ -f go.mod ] || die "pack runs in the vkstat source tree"
	rm -rf "$dist"
	mkdir -p "$dist/bin" "$dist/tests" "$dist/debs" "$dist/bench/peers" "$dist/bench/e2e" || exit 2
	local version
	version=$(scripts/version.sh)
	echo "== building vkstat $version" >&2
	# -tags nogdal: the GPU machine has no GDAL and cannot install it; rasters
	# (vkstat stack on GeoTIFF/ENVI) say so there, everything else works.
	go build -tags nogdal -trimpath -ldflags "-s -w -X github.com/vkstat/vkstat/cli.Version=$version" -o "$dist/bin/vkstat" ./cmd/vkstat || exit 1
	echo "== building test binaries" >&2
	local pkg rel failed=()
	for pkg in $(go list -f '{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}}{{end}}' ./...); do
		rel=${pkg#github.com/vkstat/vkstat/}
		# internal/lintcheck reads the source tree, which the GPU machine does
		# not get: it checks the code, not the device, and runs in CI.
		[ "$rel" = internal/lintcheck ] && continue
		mkdir -p "$dist/tests/$rel"
		if ! go test -c -tags nogdal -trimpath -ldflags "-s -w" -o "$dist/tests/$rel/$(basename "$rel").test" "./$rel"; then
			failed+=("$rel")
			rm -rf "${dist:?}/tests/$rel"
			continue
		fi
		# Tests read ./testdata and ../testdata relative to their package.
		[ -d "$rel/testdata" ] && cp -r "$rel/testdata" "$dist/tests/$rel/"
	done
	[ -d testdata ] && cp -r testdata "$dist/tests/"
	# The shader tests read ../examples/shaders and the shader sources.
	mkdir -p "$dist/tests/shaders" && cp -r shaders/*.comp shaders/include shaders/variants.txt shaders/spv "$dist/tests/shaders/" &&
		cp -r examples "$dist/tests/" || exit 1
	[ ${#failed[@]} -eq 0 ] || echo "gpu-run pack: these packages' tests did not build and are left out: ${failed[*]}" >&2
	echo "== downloading the Vulkan loader, validation layer and GL library packages" >&2
	# The NVIDIA Vulkan driver also needs the GL vendor-neutral libraries:
	# with the loader alone it answers VK_ERROR_INCOMPATIBLE_DRIVER. run
	# unpacks them into / (setup_gl).
	local pkgs=(libvulkan1 vulkan-validationlayers) e missing=()
	for e in "${gl_debs[@]}"; do pkgs+=("${e%%:*}"); done
	(cd "$dist/debs" && apt-get download "${pkgs[@]}") ||
		echo "gpu-run pack: apt-get download failed" >&2
	for e in "${pkgs[@]}"; do
		ls "$dist/debs/${e}_"*.deb >/dev/null 2>&1 || missing+=("$e")
	done
	[ ${#missing[@]} -eq 0 ] ||
		echo "gpu-run pack: not packed: ${missing[*]} (the GPU machine must have them, or the NVIDIA driver fails with VK_ERROR_INCOMPATIBLE_DRIVER)" >&2
	mkdir -p "$dist/scripts" || exit 1
	echo "== building the Python package's library" >&2
	mkdir -p "$dist/python/vkstat" &&
		go build -buildmode=c-shared -trimpath -ldflags "-s -w -extldflags=-Wl,--exclude-libs,ALL -X github.com/vkstat/vkstat/capi.Version=$version" -o "$dist/python/vkstat/libvkstat.so" ./cmd/libvkstat &&
		rm -f "$dist/python/vkstat/libvkstat.h" && cp python/vkstat/*.py python/vkstat/py.typed "$dist/python/vkstat/" || exit 1
	cp bench/report_cpu.py bench/datapath.py bench/libcall.py bench/report_stack.py bench/stack-notes.md "$dist/bench/" && cp bench/peers/*.py "$dist/bench/peers/" && cp bench/e2e/*.py "$dist/bench/e2e/" &&
		cp "$here/gpu-run.sh" "$dist/" && cp "$here/bench-latent.sh" "$dist/scripts/" || exit 1
	echo "$version" > "$dist/VERSION"
	# xz with a dictionary larger than the folder: the test binaries share
	# most of their code (Go's runtime, the engine, glslang, VkFFT), which a
	# whole-archive window stores once. 178 MB packs into 25 MB this way
	# against gzip's 75 MB, over the device tool's 64 MiB carry limit.
	rm -f "$dist.tar.gz"
	tar -C "$(dirname "$dist")" -cf - "$(basename "$dist")" | xz -T1 --lzma2=preset=3,dict=256MiB >"$dist.tar.xz" || exit 1
	du -sh "$dist" "$dist.tar.xz" >&2
	echo "packed $dist and $dist.tar.xz; on the GPU machine: $(basename "$dist")/gpu-run.sh run --out reports/" >&2
}

# ---- run ----------------------------------------------------------------

# unpack ARCHIVE DIR: a .tar.xz (or .tar.gz) into DIR, through Python's
# tarfile where tar or xz is missing.
unpack() {
	local flag=-xJf
	case $1 in *.gz | *.tgz) flag=-xzf ;; esac
	if command -v tar >/dev/null && { [ $flag = -xzf ] || command -v xz >/dev/null; }; then
		tar -C "$2" $flag "$1"
	else
		"${PYTHON:-python3}" -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' "$1" "$2"
	fi
}
declare -a summary=()
status=0

# capped SECS CMD...: runs CMD (a command or a function) in a process group
# of its own and stops the whole group after SECS (0: no cap); exit 124 then.
capped() {
	local cap=$1 mark rc
	shift
	if [ "$cap" -le 0 ]; then
		"$@"
		return
	fi
	mark=$(mktemp)
	set -m
	"$@" &
	local pid=$!
	set +m
	# The watchdog: its sleep killed early (CMD ended) fails the && chain.
	(
		sleep "$cap" && echo fired >"$mark" && kill -TERM -- -"$pid" &&
			sleep 5 && kill -KILL -- -"$pid"
	) >/dev/null 2>&1 &
	local dog=$!
	wait "$pid"
	rc=$?
	pkill -P "$dog" 2>/dev/null
	kill "$dog" 2>/dev/null
	if [ -s "$mark" ]; then
		echo "gpu-run: stopped at its cap of ${cap}s" >&2
		rc=124
	fi
	rm -f "$mark"
	return $rc
}

# Budget mode (--budget): each step's cap in seconds for a 420 s budget,
# scaled to the budget given. Caps are ceilings: a step that ends early
# leaves its time to the later ones, and tests take whatever is left.
declare -A caps=([devices]=15 [verify]=35 [verify-planted]=15 [tune]=55 [libcall]=85 [datapath]=55
	[bench]=40 [bench-builtin]=30 [peers]=65 [paco-time]=30 [e2e]=35 [latent]=40 [tests]=420)

# cap_for NAME: the seconds NAME may run: 0 without a budget; else its own
# cap (scaled), clipped to what is left of the budget; -1 when too little
# is left to start it.
cap_for() {
	[ "$budget" -gt 0 ] || { echo 0; return; }
	local left=$((deadline - SECONDS)) own=${caps[$1]:-${caps[${1%%-*}]:-30}}
	own=$((own * budget / 420))
	if [ $left -lt 5 ]; then echo -1; elif [ $own -lt $left ]; then echo $own; else echo $left; fi
}

# step NAME CMD...: runs CMD with stdout and stderr in $out/NAME.log, echoed,
# and records the exit status; under a budget, within the step's cap.
step() {
	local name=$1 cap
	shift
	cap=$(cap_for "$name")
	if [ "$cap" -lt 0 ]; then
		summary+=("$(printf '%-16s skipped: the budget of %ds is spent' "$name" "$budget")")
		status=1
		return 1
	fi
	local note=""
	[ "$cap" -gt 0 ] && note=" (cap ${cap}s)"
	echo "== $name$note: $*" | tee -a "$out/run.log" >&2
	local t0=$SECONDS
	capped "$cap" "$@" 2>&1 | tee "$out/$name.log"
	local rc=${PIPESTATUS[0]}
	summary+=("$(printf '%-16s exit %-3d %4ds  %s' "$name" "$rc" $((SECONDS - t0)) "$*")")
	[ "$rc" -eq 0 ] || status=1
	echo "-- $name: exit $rc" | tee -a "$out/run.log" >&2
	return "$rc"
}

# expect_fail NAME CMD...: like step, but CMD must exit 1.
expect_fail() {
	local name=$1 cap
	shift
	cap=$(cap_for "$name")
	if [ "$cap" -lt 0 ]; then
		summary+=("$(printf '%-16s skipped: the budget of %ds is spent' "$name" "$budget")")
		status=1
		return
	fi
	echo "== $name (must fail): $*" | tee -a "$out/run.log" >&2
	capped "$cap" "$@" > "$out/$name.log" 2>&1
	local rc=$?
	local verdict="ok (failed as planted)"
	if [ $rc -ne 1 ]; then
		verdict="WRONG: a planted error was not caught"
		status=1
	fi
	summary+=("$(printf '%-16s exit %-3d        %s: %s' "$name" "$rc" "$verdict" "$*")")
	echo "-- $name: exit $rc, $verdict" | tee -a "$out/run.log" >&2
}

# have_lib SONAME ROOT: whether the library is installed: in the linker
# cache when ROOT is /, as a file of ROOT's multiarch folder otherwise.
have_lib() {
	if [ "$2" = / ]; then
		# grep reads the whole list (no -q): under pipefail, grep -q quitting
		# early kills ldconfig with SIGPIPE and the library reads as missing.
		ldconfig -p 2>/dev/null | grep "^[[:space:]]*${1//./\\.} " >/dev/null
	else
		[ -e "$2/usr/lib/x86_64-linux-gnu/$1" ]
	fi
}

# setup_gl unpacks the packed GL libraries (gl_debs) that the machine lacks
# into the root filesystem with dpkg-deb -x and runs ldconfig, before
# anything opens Vulkan: the NVIDIA driver finds them only by the system's
# own search path (on the H100 an LD_LIBRARY_PATH sysroot was not enough).
# Idempotent: a library already there is left alone, and a second run
# unpacks nothing. Without write access to the root it falls back to a
# sysroot on LD_LIBRARY_PATH and says so. GPU_RUN_ROOT (default /) and
# GPU_RUN_LDCONFIG (default ldconfig) let a test aim it elsewhere.
setup_gl() {
	local root=${GPU_RUN_ROOT:-/} ldc=${GPU_RUN_LDCONFIG:-ldconfig}
	local e pkg so deb debs=()
	for e in "${gl_debs[@]}"; do
		pkg=${e%%:*} so=${e#*:}
		have_lib "$so" "$root" && continue
		deb=$(ls "$dist/debs/${pkg}_"*.deb 2>/dev/null | head -1)
		if [ -z "$deb" ]; then
			echo "gpu-run: $so is missing and $dist/debs has no $pkg package: the NVIDIA driver may fail with VK_ERROR_INCOMPATIBLE_DRIVER" >&2
			continue
		fi
		debs+=("$deb")
	done
	[ ${#debs[@]} -eq 0 ] && return 0
	if [ ! -w "$root" ]; then
		local sysroot=$dist/sysroot
		mkdir -p "$sysroot"
		for deb in "${debs[@]}"; do dpkg-deb -x "$deb" "$sysroot" || die "dpkg-deb -x $deb failed"; done
		export LD_LIBRARY_PATH="$sysroot/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
		echo "gpu-run: $root is not writable: GL libraries on LD_LIBRARY_PATH from $sysroot, which the NVIDIA driver may not accept (run as root)" >&2
		return 0
	fi
	for deb in "${debs[@]}"; do
		dpkg-deb -x "$deb" "$root" || die "dpkg-deb -x $deb $root failed"
		echo "gpu-run: unpacked $(basename "$deb") into $root" >&2
	done
	"$ldc" || die "$ldc failed after unpacking the GL libraries"
}

setup_vulkan() {
	local sysroot=$dist/sysroot
	local force=${GPU_RUN_USE_DEBS:-0}
	if [ "$force" = 1 ] || ! ldconfig -p 2>/dev/null | grep 'libvulkan\.so\.1 ' >/dev/null; then
		ls "$dist"/debs/libvulkan1_*.deb >/dev/null 2>&1 || die "no Vulkan loader on this machine and none in $dist/debs"
		mkdir -p "$sysroot"
		for f in "$dist"/debs/*.deb; do dpkg -x "$f" "$sysroot" || die "dpkg -x $f failed"; done
		export LD_LIBRARY_PATH="$sysroot/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
		export VKSTAT_VULKAN_LIB="$sysroot/usr/lib/x86_64-linux-gnu/libvulkan.so.1"
		echo "gpu-run: Vulkan loader from $dist/debs" >&2
	fi
	local layers=/usr/share/vulkan/explicit_layer.d
	if { [ "$force" = 1 ] || [ ! -f $layers/VkLayer_khronos_validation.json ]; } && ls "$dist"/debs/vulkan-validationlayers_*.deb >/dev/null 2>&1; then
		mkdir -p "$sysroot"
		for f in "$dist"/debs/vulkan-validationlayers_*.deb; do dpkg -x "$f" "$sysroot"; done
		export LD_LIBRARY_PATH="$sysroot/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
		# VK_ADD_LAYER_PATH for loaders from 1.3.234, VK_LAYER_PATH before.
		export VK_ADD_LAYER_PATH="$sysroot$layers" VK_LAYER_PATH="$sysroot$layers"
		echo "gpu-run: validation layer from $dist/debs" >&2
	fi
	setup_gl
	local nv=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
	if [ -z "${VK_DRIVER_FILES:-}${VK_ICD_FILENAMES:-}" ] && [ -f $nv ] && [ $dry -eq 0 ]; then
		export VK_DRIVER_FILES=$nv
		echo "gpu-run: NVIDIA ICD $nv" >&2
	fi
}

# Tests that read the source tree or run go or make: they cannot pass in a
# packed DIST, and a failure in a GPU report must mean one on the GPU.
source_tests='^(TestReferencesIndependent|TestGofmtCheck|TestMakeLintFailsOnUnformattedCode|TestInterruptSynthRandom|TestSurveyInterrupt)$'

# run_tests runs every test binary in its package's folder (tests read
# testdata relative to it), less source_tests; full logs go to $out/tests/.
run_tests() {
	local t dir name rc=0 trc short=()
	[ $dry -eq 1 ] || [ "$budget" -gt 0 ] && short=(-test.short)
	mkdir -p "$out/tests"
	while IFS= read -r t; do
		dir=$(dirname "$t")
		name=${dir#"$dist"/tests/}
		name=${name//\//_}
		(cd "$dir" && CI=true VKSTAT_TEST_VULKAN=1 "./$(basename "$t")" -test.v -test.timeout 30m -test.skip "$source_tests" "${short[@]}") > "$out/tests/$name.log" 2>&1
		trc=$?
		[ $trc -eq 0 ] || rc=1
		printf '%-24s exit %d  %s\n' "$name" $trc "$(grep -cE '^\s*--- PASS' "$out/tests/$name.log") passed, $(grep -cE '^\s*--- FAIL' "$out/tests/$name.log") failed, $(grep -cE '^\s*--- SKIP' "$out/tests/$name.log") skipped"
		grep -E '^\s*--- FAIL|^panic|^FAIL' "$out/tests/$name.log" | head -20
	done < <(find "$dist/tests" -name '*.test' -type f | sort | test_order)
	return $rc
}

# test_order: the test binaries on stdin, those that drive the GPU first
# (engine, pipelines, suite, tensor) under a budget, where the last ones
# may not run; as given otherwise.
test_order() {
	if [ "$budget" -gt 0 ]; then
		local all
		all=$(cat)
		grep -E '/tests/(engine|pipelines|suite|tensor)/' <<<"$all"
		grep -vE '/tests/(engine|pipelines|suite|tensor)/' <<<"$all"
	else
		cat
	fi
}

run_peers() {
	local kind rc=0
	for kind in numpy torch cupy; do
		"$py" "$dist/bench/report_cpu.py" peers --peer $kind --repeat "$repeat" --python "$py" "$out/bench.json" > "$out/$kind.jsonl" || rc=1
		[ -s "$out/$kind.jsonl" ] || rm -f "$out/$kind.jsonl"
	done
	"$py" "$dist/bench/report_cpu.py" report --title "GPU-machine benchmarks" \
		--command "scripts/gpu-run.sh run --size $size --repeat $repeat" "$out/bench.json" "$out"/*.jsonl > "$out/gpu.md" || rc=1
	return $rc
}

# run_latent: vkstat latent on the GPU against PyTorch (kernels and end to
# end) and NumPy, at the issue's N = 64 and a larger N; in a dry run N = 2
# on whatever Vulkan device there is.
run_latent() {
	local n peer sizes=(64 256) peers=(torch numpy) dev=gpu r=$repeat
	# Under a budget: N = 64 against PyTorch, 3 runs each (the peer runs
	# every statistic in one interpreter), inside the step's 40 s cap.
	[ "$budget" -gt 0 ] && sizes=(64) peers=(torch) r=3
	if [ $dry -eq 1 ]; then sizes=(2); dev=0; fi
	for n in "${sizes[@]}"; do
		for peer in "${peers[@]}"; do
			local pyp=$py
			if [ $peer = torch ] && ! "$py" -c 'import numpy, torch; assert torch.cuda.is_available()' 2>/dev/null; then
				summary+=("latent-torch-$n   skipped: $py has no PyTorch with a CUDA device")
				[ $dry -eq 1 ] || status=1
				continue
			fi
			[ $peer = numpy ] && command -v /usr/bin/python3 >/dev/null && ! "$py" -c 'import numpy' 2>/dev/null && pyp=/usr/bin/python3
			PYTHON=$pyp step "latent-$peer-$n" "$dist/scripts/bench-latent.sh" "$vk" "$n" "$r" "$dev" "$peer"
			grep -E '^(\||targets)' "$out/latent-$peer-$n.log" > "$out/latent-$peer-$n.md"
		done
	done
}

# paco_time: the PACO kernel time as `vkstat --time paco` reports it, stage
# by stage, and as `vkstat bench` does, on the same device in one step.
paco_time() {
	local d=$out/paco-synth size=100 frames=252 dev=gpu i rc=0 runs=3
	if [ $dry -eq 1 ]; then size=48 frames=32 dev=0; fi
	[ "$budget" -gt 0 ] && runs=2
	"$vk" synth paco --out-dir "$d" --size $size --frames $frames >/dev/null || return 1
	# --quick-contrast: the maps and detections the peers compute, as the
	# earlier reports timed them (the calibrated curve runs the maps 8 more times).
	local files=(--cube "$d/cube.fits" --angles "$d/angles.fits" --psf "$d/psf.fits" --quick-contrast) TIMEFORMAT="process wall time: %R s"
	for i in $(seq $runs); do
		echo "-- vkstat --time paco, run $i"
		time "$vk" --device $dev --time paco "${files[@]}" --out-dir "$d/out$i" || rc=1
	done
	if [ "$budget" -gt 0 ]; then
		# From the same files on the CPU path, and the PyTorch peer on the
		# same size (host cube to host maps, CUDA events).
		echo "-- vkstat --device cpu --time paco"
		time "$vk" --device cpu --time paco "${files[@]}" --out-dir "$d/out-cpu" || rc=1
		echo "-- torch_paco.py --size $size --frames $frames"
		"$py" "$dist/bench/peers/torch_paco.py" --size $size --frames $frames --radius 4 --repeat 3
		case $? in 0 | 3) ;; *) rc=1 ;; esac # 3: no PyTorch, skipped
	fi
	[ $dry -eq 1 ] && return $rc
	echo "-- vkstat bench --suite paco (VKSTAT_BENCH_STAGES: each run's stages, as --time prints them)"
	VKSTAT_BENCH_STAGES=1 "$vk" bench --suite paco --device $dev --size paper --precision f32 --repeat "$repeat" || rc=1
	return $rc
}

run() {
	dist="" out="" size=paper repeat="" steps="" dry=0 budget=0
	while [ $# -gt 0 ]; do
		case $1 in
		--dist) dist=$2; shift 2 ;;
		--out) out=$2; shift 2 ;;
		--size) size=$2; shift 2 ;;
		--repeat) repeat=$2; shift 2 ;;
		--steps) steps=$2; shift 2 ;;
		--budget) budget=$2; shift 2 ;;
		--dry-run) dry=1; shift ;;
		*) die "unknown option $1 (see the head of $0)" ;;
		esac
	done
	if ! [[ $budget =~ ^[0-9]+$ ]] || { [ "$budget" -gt 0 ] && [ "$budget" -lt 60 ]; }; then
		die "--budget wants whole seconds, 60 or more (420 fits a 15-minute GPU lease)"
	fi
	# The order steps run in: everything's, or under a budget the order of
	# what is still unmeasured on the GPU, tests last with what is left.
	local order=(devices tune tests verify shaders bench peers datapath libcall e2e latent paco-time)
	if [ "$budget" -gt 0 ]; then
		order=(devices verify tune libcall datapath bench peers paco-time e2e latent tests shaders)
		steps=${steps:-devices,verify,tune,libcall,datapath,bench,peers,paco-time,e2e,latent,tests}
		repeat=${repeat:-5}
		deadline=$((SECONDS + budget))
	fi
	steps=${steps:-devices,tune,tests,verify,shaders,bench,peers,datapath,libcall,e2e,latent,paco-time}
	repeat=${repeat:-10}
	if [ $dry -eq 1 ]; then
		size=small
		[ "$repeat" = 10 ] && repeat=3
	fi
	if [ -z "$dist" ]; then
		if [ -x "$here/bin/vkstat" ]; then dist=$here; else dist=$here/../out/gpu-dist; fi
	fi
	if [ -f "$dist" ]; then # an archive: unpack beside it
		local parent
		parent=$(mktemp -d "${TMPDIR:-/tmp}/gpu-dist.XXXXXX")
		unpack "$dist" "$parent" || die "cannot unpack $dist"
		dist=$(find "$parent" -mindepth 1 -maxdepth 1 -type d | head -1)
	fi
	dist=$(cd "$dist" 2>/dev/null && pwd) || die "no packed folder at $dist (run: scripts/gpu-run.sh pack)"
	[ -x "$dist/bin/vkstat" ] || die "$dist/bin/vkstat is missing (run: scripts/gpu-run.sh pack)"
	out=${out:-out/gpu-run-$(date -u +%Y%m%dT%H%M%SZ)}
	mkdir -p "$out" || die "cannot create $out"
	out=$(cd "$out" && pwd)
	py=${PYTHON:-python3}
	local vk=$dist/bin/vkstat

	setup_vulkan
	# The NVIDIA driver's own shader disk cache, on, in a folder that
	# exists (the driver does not make it) and is kept for the run: old
	# driver documentation says it is off for root, which the GPU machine
	# runs as; libcall measures what it saves (docs/gpu.md).
	export __GL_SHADER_DISK_CACHE=${__GL_SHADER_DISK_CACHE:-1} __GL_SHADER_DISK_CACHE_SKIP_CLEANUP=${__GL_SHADER_DISK_CACHE_SKIP_CLEANUP:-1}
	export __GL_SHADER_DISK_CACHE_PATH=${__GL_SHADER_DISK_CACHE_PATH:-$out/nv-shader-cache} __GL_SHADER_DISK_CACHE_SIZE=${__GL_SHADER_DISK_CACHE_SIZE:-1073741824}
	mkdir -p "$__GL_SHADER_DISK_CACHE_PATH"
	{
		echo "gpu-run on $(hostname) at $(date -u +%Y-%m-%dT%H:%M:%SZ), vkstat $(cat "$dist/VERSION" 2>/dev/null || echo '?')"
		echo "dry run: $dry; size $size; repeat $repeat; steps $steps"
		uname -a
		command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
		echo "VK_DRIVER_FILES=${VK_DRIVER_FILES:-} VKSTAT_VULKAN_LIB=${VKSTAT_VULKAN_LIB:-} VK_ADD_LAYER_PATH=${VK_ADD_LAYER_PATH:-}"
		env | grep -E '^__GL_SHADER_DISK_CACHE' | sort
	} > "$out/environment.txt" 2>&1
	cat "$out/environment.txt" >&2

	local device=all validate=(--validate) suites=all tunes=all dpr=5
	if [ "$budget" -gt 0 ]; then suites=map,reduce,cov,chol tunes=cov,chol,reduce,map dpr=3; fi
	has() { [[ ",$steps," == *",$1,"* ]]; }
	# The tuned parameters: found by the tune step, read by every later
	# one (the pipelines' own tests turn the cache off).
	export VKSTAT_TUNE_DIR=${VKSTAT_TUNE_DIR:-$out/tune-cache}
	local s
	for s in "${order[@]}"; do
		has "$s" || continue
		case $s in
		devices)
			step devices "$vk" devices
			"$vk" devices --json > "$out/devices.json" 2>>"$out/run.log"
			;;
		tune)
			# Under a budget the slowest kernels first: a search stopped at its
			# cap keeps the winners it stored.
			step tune "$vk" bench --tune --suite "$tunes" --device "$device" --repeat "$repeat" --json "$out/tune.json"
			"$vk" devices --tune > "$out/tuning.txt" 2>>"$out/run.log"
			;;
		tests) step tests run_tests ;;
		verify)
			step verify "$vk" "${validate[@]}" verify --device "$device" --json "$out/verify.json"
			expect_fail verify-planted "$vk" verify --device vulkan --op map --precision f32 --plant-error map:vulkan
			;;
		shaders)
			# The example shaders on every device, outputs compared between them.
			step shaders "$dist/tests/examples/shaders/check.sh" "$vk" "${validate[@]}" --device all --repeat "$repeat"
			;;
		bench)
			step bench "$vk" bench --suite "$suites" --device "$device" --size "$size" --repeat "$repeat" --json "$out/bench.json" --png "$out/bench.png"
			has tune || continue
			# The same run's figures with the built-in parameters (no tune cache).
			if [ "$budget" -gt 0 ]; then
				step bench-builtin env VKSTAT_TUNE_DIR=off "$vk" bench --suite reduce,cov,chol --device "$device" --size "$size" --repeat "$repeat" --json "$out/bench-builtin.json"
				continue
			fi
			step bench-builtin env VKSTAT_TUNE_DIR=off "$vk" bench --suite reduce --device "$device" --size "$size" --repeat "$repeat" --json "$out/bench-reduce-builtin.json"
			step bench-builtin-cov env VKSTAT_TUNE_DIR=off "$vk" bench --suite cov --device "$device" --size "$size" --repeat "$repeat" --json "$out/bench-cov-builtin.json"
			step bench-chol-builtin env VKSTAT_TUNE_DIR=off "$vk" bench --suite chol --device "$device" --size "$size" --repeat "$repeat" --json "$out/bench-chol-builtin.json"
			;;
		peers)
			if [ -f "$out/bench.json" ]; then
				step peers run_peers
			else
				summary+=("peers            skipped: no bench.json (run the bench step)")
			fi
			;;
		datapath)
			local dpdry=()
			[ $dry -eq 1 ] && dpdry=(--dry-run)
			step datapath "$py" "$dist/bench/datapath.py" --vkstat "$vk" --out "$out" --repeat "$dpr" "${dpdry[@]}"
			;;
		libcall)
			local lcopt=(--repeat "$dpr")
			[ $dry -eq 1 ] && lcopt+=(--dry-run)
			[ "$budget" -gt 0 ] && [ "$budget" -lt 420 ] && lcopt+=(--no-big-paco)
			step libcall "$py" "$dist/bench/libcall.py" --vkstat "$vk" --python "$dist/python" --out "$out" "${lcopt[@]}"
			;;
		e2e)
			# The GPU where the user's whole job runs (the dry run: lavapipe).
			local e2edev=gpu e2eonly=map,sum,stack-axis0,rows-axis-1,cov,paco,latent
			[ $dry -eq 1 ] && e2edev=lavapipe
			[ "$budget" -gt 0 ] || [ $dry -eq 1 ] && e2eonly=map,sum,cov,paco
			step e2e "$py" "$dist/bench/e2e/run.py" --bin "$vk" --device "$e2edev" --runs 3 --only "$e2eonly" --out "$out/e2e.md"
			;;
		latent) run_latent ;;
		paco-time) step paco-time paco_time ;;
		esac
	done

	# The targets page again, now with datapath's link figures (no GPU work).
	[ -f "$out/libcall.json" ] && "$py" "$dist/bench/libcall.py" --targets --out "$out" > /dev/null 2>>"$out/run.log"
	{
		echo "gpu-run summary ($(date -u +%Y-%m-%dT%H:%M:%SZ)); reports in $out"
		printf '%s\n' "${summary[@]}"
		[ $status -eq 0 ] && echo "all steps passed" || echo "SOME STEPS FAILED"
	} | tee "$out/summary.txt"
	return $status
}

case ${1:-} in
pack) shift; pack "$@" ;;
run) shift; run "$@"; exit $? ;;
*) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2 ;;
esac
