#!/usr/bin/env bash
# scripts/compare-outputs.sh BIN_A BIN_B OUTDIR [--demo]
#
# The contract audit (docs/contract-audit.md): runs the same command lines
# with two vkstat binaries (say the last release's and HEAD's, built with the
# same -X cli.Version) and lists every difference in what they print and
# write: stdout, stderr and the exit status of each case, and every file each
# case writes. Inputs are made by each binary's own `synth` with fixed seeds
# (synth's outputs are compared too) and the repository's testdata and
# examples. Timings are masked; FITS files are compared without their DATE
# and CREATOR cards, PNG files by their decoded pixels, JSON with its time and
# host fields masked. --demo also runs scripts/demo.sh (make demo) with each.
# No GPU and no network needed: cases run on --device cpu and lavapipe.
#
# OUTDIR/a and OUTDIR/b hold the runs, OUTDIR/report.txt the differences
# (one line each: case, file, what differs). Exit status 0 when there are
# none, 1 when there are.
set -uo pipefail
[ $# -ge 3 ] || { echo "usage: $0 BIN_A BIN_B OUTDIR [--demo]" >&2; exit 2; }
A=$(realpath "$1") B=$(realpath "$2") OUT=$3 DEMO=${4:-}
repo=$(cd "$(dirname "$0")/.." && pwd)
ex=$repo/examples/shaders td=$repo/testdata
mkdir -p "$OUT" && OUT=$(realpath "$OUT")

run_all() { # BIN DIR
	local bin=$1 dir=$2
	rm -rf "$dir" && mkdir -p "$dir/o" "$dir/log" "$dir/cache"
	cd "$dir" || exit 1
	# own caches, so neither binary reads what the other wrote
	export XDG_CACHE_HOME=$dir/cache VKSTAT_TUNE_DIR=$dir/cache/tune
	export VKSTAT_FFT_CACHE=$dir/cache/fft VKSTAT_PIPELINE_CACHE=$dir/cache/pipe
	unset VKSTAT_DEVICE VKSTAT_VALIDATE VKSTAT_DISABLE VKSTAT_SHADER_DIR VKSTAT_PLOT_FORMAT
	c() { # NAME ARGS...: one case, its output files under o/NAME
		local n=$1; shift
		mkdir -p "o/$n"
		"$bin" "$@" >"log/$n.out" 2>"log/$n.err" </dev/null
		echo $? >"log/$n.rc"
	}
	cases
	if [ "$DEMO" = --demo ]; then
		mkdir -p demo && (cd demo && "$repo/scripts/demo.sh" "$bin" >../log/demo.out 2>../log/demo.err; echo $? >../log/demo.rc)
	fi
}

# --help of every command and subcommand, walking `vkstat help`.
helps() {
	c help-top help
	local cmd sub
	for cmd in $("$bin" help | awk '/^COMMANDS:/{f=1;next} /^[A-Z]/{f=0} f&&NF{sub(/,$/,"",$1); print $1}'); do
		[ "$cmd" = help ] && continue
		c "help-$cmd" "$cmd" --help
		for sub in $("$bin" "$cmd" --help | awk '/^COMMANDS:/{f=1;next} /^[A-Z]/{f=0} f&&NF{sub(/,$/,"",$1); print $1}'); do
			[ "$sub" = help ] && continue
			c "help-$cmd-$sub" "$cmd" "$sub" --help
		done
	done
}

cases() {
	local q=(-q --device cpu)
	helps
	c version --version
	c completion-bash completion bash
	c completion-zsh completion zsh
	# inputs, from each binary's synth
	c synth-x synth random --shape 16,24,32 --seed 1 --out o/synth-x/x.npy
	c synth-y synth random --shape 16,24,32 --seed 2 --dist normal --loc 3 --scale 2 --out o/synth-y/y.npy
	c synth-f64 synth random --shape 4000 --dtype f64 --seed 3 --out o/synth-f64/v.fits
	c synth-paco synth paco --size 40 --frames 16 --rotation 60 --fwhm 3 \
		--companion sep=10,pa=45,flux=80 --seed 5 --out-dir o/synth-paco
	c synth-stack synth stack --dates 3 --shape 64,64 --change 3 --seed 4 --out-dir o/synth-stack
	c synth-stack-envi synth stack --dates 2 --shape 32,48 --type cfloat32 --format envi --nodata-border 2 --seed 6 --out-dir o/synth-stack-envi
	c synth-latent synth latent --shape 2,4,4,8,8 --seed 7 --out o/synth-latent/l.npy --truth o/synth-latent/truth.json
	c synth-latent-st synth latent --shape 1,3,2,8,8 --dtype bf16 --seed 8 --out o/synth-latent-st/l.safetensors
	c synth-survey synth survey --targets 3 --size 32 --frames 12 --seed 2 --out-dir o/synth-survey
	local x=o/synth-x/x.npy y=o/synth-y/y.npy adi=o/synth-paco
	# a (4, 5) float32 array with NaNs, written here (NPY v1, no NumPy needed)
	/usr/bin/python3 -c 'import struct,sys; h="{\x27descr\x27: \x27<f4\x27, \x27fortran_order\x27: False, \x27shape\x27: (4, 5), }"; h=h.ljust(117)+"\n"; v=[float("nan") if i%7==3 else i*0.5-3 for i in range(20)]; sys.stdout.buffer.write(b"\x93NUMPY\x01\x00"+struct.pack("<H",len(h))+h.encode()+struct.pack("<20f",*v))' >o/nan.npy
	# devices
	c devices devices
	c devices-json devices --json
	c devices-tune devices --tune
	# map
	c map "${q[@]}" map --x $x --y $y --a 3.5 --b 2.8 --c 10 --out o/map/z.npy
	c map-time --device cpu --time --time-json o/map-time/t.json map --x $x --y $y --out o/map-time/z.npy
	c map-fits "${q[@]}" map --x $x --y $y --out o/map-fits/z.fits
	c map-lvp -q --device lavapipe map --x $x --y $y --a 2 --out o/map-lvp/z.npy
	c map-nan-in "${q[@]}" map --x o/nan.npy --y o/nan.npy --out o/map-nan-in/z.npy
	c map-bad-shape "${q[@]}" map --x $x --y o/synth-f64/v.fits --out o/map-bad-shape/z.npy
	c map-nan "${q[@]}" map --x $x --y $y --a NaN --out o/map-nan/z.npy
	c map-missing "${q[@]}" map --x nosuch.npy --y $y --out o/map-missing/z.npy
	c map-badflag "${q[@]}" map --x $x --y $y --bogus 1 --out o/map-badflag/z.npy
	# reduce, its partials and merge
	c reduce "${q[@]}" reduce --in $x --axis 0 --stat mean,std --out-dir o/reduce
	c reduce-json "${q[@]}" reduce --in $y --axis 0,2 --stat all --ddof 1 --json --out-dir o/reduce-json
	c reduce-lvp -q --device lavapipe reduce --in $x --axis -1 --stat sum,min,max --out-dir o/reduce-lvp
	c reduce-fits "${q[@]}" reduce --in o/synth-f64/v.fits --axis 0 --stat var --ddof 1 --out-dir o/reduce-fits
	c reduce-ddof-warn "${q[@]}" reduce --in $x --axis 0 --stat var --ddof 16 --out-dir o/reduce-ddof-warn
	c reduce-p1 "${q[@]}" reduce --in $x --axis 0 --stat mean,var --partial --out-dir o/reduce-p1
	c reduce-p2 "${q[@]}" reduce --in $y --axis 0 --stat mean,var --partial --out-dir o/reduce-p2
	c merge "${q[@]}" merge --out-dir o/merge o/reduce-p1 o/reduce-p2
	c merge-json "${q[@]}" merge --json --out-dir o/merge-json o/reduce-p1 o/reduce-p2
	c merge-twice "${q[@]}" merge --out-dir o/merge-twice o/reduce-p1 o/reduce-p1
	c merge-none "${q[@]}" merge --out-dir o/merge-none
	c reduce-nan "${q[@]}" reduce --in o/nan.npy --axis 0 --stat all --out-dir o/reduce-nan
	c reduce-skipnan "${q[@]}" reduce --in o/nan.npy --axis -1 --stat all --skip-nan --json --out-dir o/reduce-skipnan
	c reduce-skipnan-lvp -q --device lavapipe reduce --in o/nan.npy --axis 0 --stat mean,std --skip-nan --out-dir o/reduce-skipnan-lvp
	c reduce-bad-axis "${q[@]}" reduce --in $x --axis 3 --out-dir o/reduce-bad-axis
	c reduce-bad-stat "${q[@]}" reduce --in $x --stat median --out-dir o/reduce-bad-stat
	c reduce-nan-ddof "${q[@]}" reduce --in $x --ddof NaN --stat var --out-dir o/reduce-nan-ddof
	c reduce-missing "${q[@]}" reduce --in nosuch.npy --out-dir o/reduce-missing
	c reduce-badflag "${q[@]}" reduce --in $x --bogus --out-dir o/reduce-badflag
	# quantile
	c quantile "${q[@]}" quantile --in $x --axis 0 --q 0.25,0.5,0.9 --out-dir o/quantile
	c quantile-json "${q[@]}" quantile --in $y --axis -1 --json --out-dir o/quantile-json
	c quantile-bad-q "${q[@]}" quantile --in $x --q 1.5 --out-dir o/quantile-bad-q
	c quantile-nan-q "${q[@]}" quantile --in $x --q NaN --out-dir o/quantile-nan-q
	# cov, then chol on its covariances
	c cov "${q[@]}" cov --in $x --estimator ledoit-wolf --out-cov o/cov/c.npy --out-mean o/cov/m.npy --out-rho o/cov/r.npy
	c cov-json "${q[@]}" cov --in $y --estimator oas --ddof 1 --json --out-cov o/cov-json/c.npy
	c cov-shrunk "${q[@]}" cov --in $x --estimator shrunk --shrinkage 0.3 --assume-centered --out-cov o/cov-shrunk/c.fits
	c cov-paco "${q[@]}" cov --cube $adi/cube.fits --radius 2 --estimator paco --out-cov o/cov-paco/c.npy --out-locations o/cov-paco/l.npy
	c cov-bad-est "${q[@]}" cov --in $x --estimator bogus --out-cov o/cov-bad-est/c.npy
	c cov-nan-shrink "${q[@]}" cov --in $x --estimator shrunk --shrinkage NaN --out-cov o/cov-nan-shrink/c.npy
	c cov-bad-shape "${q[@]}" cov --in o/synth-f64/v.fits --out-cov o/cov-bad-shape/c.npy
	c chol "${q[@]}" chol --in o/cov/c.npy --solve o/cov/m.npy --out-l o/chol/l.npy --out-x o/chol/x.npy \
		--out-logdet o/chol/ld.npy --out-inverse o/chol/inv.npy --out-quad o/chol/q.npy --out-info o/chol/info.npy
	c chol-json "${q[@]}" chol --in o/cov/c.npy --json --out-logdet o/chol-json/ld.npy
	c chol-factored "${q[@]}" chol --factored --in o/chol/l.npy --solve o/cov/m.npy --out-x o/chol-factored/x.npy --out-logdet o/chol-factored/ld.npy
	c chol-lvp -q --device lavapipe chol --in o/cov/c.npy --out-l o/chol-lvp/l.npy
	c chol-not-spd "${q[@]}" chol --in $x --out-l o/chol-not-spd/l.npy
	c chol-solve-no-x "${q[@]}" chol --in o/cov/c.npy --solve o/cov/m.npy --out-l o/chol-solve-no-x/l.npy
	c chol-missing "${q[@]}" chol --in nosuch.npy --out-l o/chol-missing/l.npy
	# stack
	c stack "${q[@]}" stack --looks 4x4 --filter lee --filter-size 5 --plot mean,cv --format tif,npy,fits --out-dir o/stack @o/synth-stack/dates.txt
	c stack-json "${q[@]}" stack --looks 2x2 --db --quantity amplitude --ddof 1 --json --format npy --out-dir o/stack-json @o/synth-stack/dates.txt
	c stack-lvp -q --device lavapipe stack --looks 4x4 --filter refined-lee --filter-size 7 --format npy --out-dir o/stack-lvp @o/synth-stack/dates.txt
	c stack-envi "${q[@]}" stack --looks 2x2 --window 2,2,40,24 --format npy --out-dir o/stack-envi @o/synth-stack-envi/dates.txt
	c stack-p1 "${q[@]}" stack --looks 4x4 --partial --out-dir o/stack-p1 o/synth-stack/date_001.tif o/synth-stack/date_002.tif
	c stack-p2 "${q[@]}" stack --looks 4x4 --partial --out-dir o/stack-p2 o/synth-stack/date_003.tif
	c stack-merge "${q[@]}" merge --out-dir o/stack-merge o/stack-p1 o/stack-p2
	c stack-bad-window "${q[@]}" stack --window 1,2,3 --out-dir o/stack-bad-window @o/synth-stack/dates.txt
	c stack-bad-looks "${q[@]}" stack --looks 2,3,4 --out-dir o/stack-bad-looks @o/synth-stack/dates.txt
	c stack-bad-filter "${q[@]}" stack --filter lee --filter-size 4 --out-dir o/stack-bad-filter @o/synth-stack/dates.txt
	c stack-nan-enl "${q[@]}" stack --filter lee --enl NaN --out-dir o/stack-nan-enl @o/synth-stack/dates.txt
	c stack-mixed "${q[@]}" stack --out-dir o/stack-mixed o/synth-stack/date_001.tif o/synth-stack-envi/date_001.bin
	c stack-missing "${q[@]}" stack --out-dir o/stack-missing nosuch.tif
	# latent
	c latent "${q[@]}" latent --in o/synth-latent/l.npy --stat moments,corr,lagcorr --out-dir o/latent
	c latent-json "${q[@]}" latent --in o/synth-latent/l.npy --stat all --unbiased --json --truth o/synth-latent/truth.json --out-dir o/latent-json
	c latent-st "${q[@]}" latent --in o/synth-latent-st/l.safetensors --tensor latent --stat moments --axes 0,2 --out-dir o/latent-st
	c latent-p1 "${q[@]}" latent --in o/synth-latent/l.npy --stat moments --samples 0:1 --partial --out-dir o/latent-p1
	c latent-p2 "${q[@]}" latent --in o/synth-latent/l.npy --stat moments --samples 1:2 --partial --out-dir o/latent-p2
	c latent-merge "${q[@]}" merge --out-dir o/latent-merge o/latent-p1 o/latent-p2
	c merge-kinds "${q[@]}" merge --out-dir o/merge-kinds o/reduce-p1 o/latent-p1
	c latent-gap "${q[@]}" merge --out-dir o/latent-gap o/latent-p2
	c latent-bad-nan "${q[@]}" latent --in o/synth-latent/l.npy --nan ignore --out-dir o/latent-bad-nan
	c latent-bad-axes "${q[@]}" latent --in o/synth-latent/l.npy --axes 0,9 --out-dir o/latent-bad-axes
	c latent-bad-shape "${q[@]}" latent --in $x --out-dir o/latent-bad-shape
	# paco (quick contrast; the calibrated curve runs in --demo)
	local p=(--cube $adi/cube.fits --angles $adi/angles.fits --psf $adi/psf.fits --quick-contrast --radius 3)
	c paco "${q[@]}" paco "${p[@]}" --truth $adi/truth.json --format fits,npy --out-dir o/paco
	c paco-json "${q[@]}" paco "${p[@]}" --json --unbiased --pixel-scale 0.01225 --star-flux psf --out-dir o/paco-json
	c paco-fwhm "${q[@]}" paco --cube $adi/cube.fits --angles $adi/angles.fits --fwhm 3 --quick-contrast --radius 2 --compat vip --out-dir o/paco-fwhm
	c paco-both "${q[@]}" paco "${p[@]}" --fwhm 3 --out-dir o/paco-both
	c paco-neither "${q[@]}" paco --cube $adi/cube.fits --angles $adi/angles.fits --out-dir o/paco-neither
	c paco-pixscale0 "${q[@]}" paco "${p[@]}" --pixel-scale 0 --out-dir o/paco-pixscale0
	c paco-nan-thr "${q[@]}" paco "${p[@]}" --threshold NaN --out-dir o/paco-nan-thr
	c paco-bad-angles "${q[@]}" paco --cube $adi/cube.fits --angles $x --psf $adi/psf.fits --out-dir o/paco-bad-angles
	c paco-missing "${q[@]}" paco --cube nosuch.fits --angles $adi/angles.fits --fwhm 3 --out-dir o/paco-missing
	c paco-bad-starflux "${q[@]}" paco "${p[@]}" --star-flux x --out-dir o/paco-bad-starflux
	# survey
	c survey "${q[@]}" survey run o/synth-survey/manifest.csv --radius 2 --quick-contrast --out-dir o/survey
	c survey-s1 "${q[@]}" survey run o/synth-survey/manifest.csv --radius 2 --quick-contrast --shard 1/2 --out-dir o/survey-s
	c survey-s2 "${q[@]}" survey run o/synth-survey/manifest.csv --radius 2 --quick-contrast --shard 2/2 --out-dir o/survey-s
	c survey-merge "${q[@]}" survey merge o/survey-s
	printf 'name,cube,angles,fwhm,radius,pixel-scale\nt00,synth-survey/t00/cube.fits,synth-survey/t00/angles.fits,3,x,\nt01,synth-survey/t01/cube.fits,synth-survey/t01/angles.fits,3,2,0\nt02,synth-survey/t02/cube.fits,synth-survey/t02/angles.fits,,2,\n' >o/bad-manifest.csv
	c survey-bad "${q[@]}" survey run o/bad-manifest.csv --quick-contrast --out-dir o/survey-bad
	c survey-missing "${q[@]}" survey run nosuch.csv --out-dir o/survey-missing
	# shader loop
	local s=(--bind x=$ex/saxpy_x.npy --bind y=$ex/saxpy_y.npy --push a=2.5 --push n=1000 --global 1000)
	c shader-info "${q[@]}" shader info $ex/saxpy.comp
	c shader-info-json "${q[@]}" shader info --json $ex/saxpy.comp
	c shader-run -q --device lavapipe shader run $ex/saxpy.comp "${s[@]}" --out y=o/shader-run/y.npy
	c shader-check -q --device lavapipe shader check $ex/saxpy.comp "${s[@]}" --expect y=$ex/saxpy_expected.npy
	c shader-case -q --device lavapipe shader check --case $ex/logreg.json
	c shader-case2 -q --device lavapipe shader check --case $ex/reduce_two_pass.json
	c shader-sweep -q --device lavapipe shader sweep $ex/scale_reference_sweep.json
	c shader-bad-bind -q --device lavapipe shader run $ex/saxpy.comp --bind x=$ex --bind y=$ex/saxpy_y.npy --global 10
	c shader-bad-glsl -q --device lavapipe shader run $td/shaders/undefined_macro.comp --global 1
	c shader-missing -q --device lavapipe shader run nosuch.comp --global 1
	# verify (rows only; times masked) and bench's help
	c verify-cpu -q verify --device cpu --json o/verify-cpu/report.json
	c verify-lvp -q verify --device lavapipe --json o/verify-lvp/report.json
	c verify-bad-op -q verify --device cpu --op bogus
	c bench-help bench --help
	c badcmd bogus
	c badglobal --device nosuch map --x $x --y $y --out o/badglobal/z.npy
}

(bin=$A run_all "$A" "$OUT/a")
(bin=$B run_all "$B" "$OUT/b")
/usr/bin/python3 "$repo/scripts/compare-outputs.py" "$OUT/a" "$OUT/b" | tee "$OUT/report.txt"
exit "${PIPESTATUS[0]}"
