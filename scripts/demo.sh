#!/usr/bin/env bash
# make demo: the project's main job. PACO on a synthetic ADI sequence of the
# seeds' size (100×100 pixels, 252 frames, three companions of different
# brightness) on the default device, with the detections printed next to the
# truth and the SNR map drawn; then the elementwise map of the seed notebook
# with the cost of the copies shown, per-pixel statistics of a stack, and
# temporal statistics of a synthetic SAR stack (vkstat stack).
set -euo pipefail
bin=${1:-bin/vkstat}
dir=out/demo
mkdir -p "$dir"
step() { printf '\n== %s\n' "$*"; }

step "devices"
$bin devices

step "a synthetic ADI sequence: 252 frames of 100×100, 0–60° rotation, three companions"
$bin synth paco --size 100 --frames 252 --rotation 60 --fwhm 4 \
	--companion sep=15,pa=45,flux=150 --companion sep=35,pa=160,flux=15 --companion sep=40,pa=280,flux=12 \
	--seed 5 --out-dir $dir/adi

step "PACO on the default device"
$bin --time paco --cube $dir/adi/cube.fits --angles $dir/adi/angles.fits --psf $dir/adi/psf.fits \
	--truth $dir/adi/truth.json --out-dir $dir/paco
echo "SNR map with the detections circled: $dir/paco/snr.png"

step "z = 3.5·x² + 2.8·y + 10 on 5,000,000 float64, with and without copies"
$bin synth random --shape 5000000 --dtype f64 --seed 1 --out $dir/x.npy
$bin synth random --shape 5000000 --dtype f64 --seed 2 --out $dir/y.npy
devices=(auto)
$bin devices --json | grep -q llvmpipe && devices+=(lavapipe)
for d in "${devices[@]}"; do
	echo "-- --device $d"
	$bin --device "$d" --time map --x $dir/x.npy --y $dir/y.npy --a 3.5 --b 2.8 --c 10 --out $dir/z-$d.npy
done

step "mean and std over time of a 64×512×512 stack"
$bin synth random --shape 64,512,512 --dist normal --loc 1000 --scale 10 --seed 3 --out $dir/stack.npy
$bin --time reduce --in $dir/stack.npy --axis 0 --stat mean,std --out-dir $dir/stats

step "SAR: 6 synthetic SLC dates (CInt16 GeoTIFF, 1024×1024, a 3× change from the 4th date on)"
$bin synth stack --dates 6 --shape 1024,1024 --change 3 --seed 4 --out-dir $dir/slc
for d in "${devices[@]}"; do
	echo "-- --device $d: |S|², 4×4 multilook, refined Lee 7×7, temporal mean/std/cv/min/max/count"
	$bin --device "$d" --time stack --looks 4x4 --filter refined-lee --filter-size 7 --plot mean,cv \
		--out-dir $dir/sar-$d @$dir/slc/dates.txt
done
echo "GeoTIFFs with the dates' georeferencing and quicklooks: $dir/sar-auto/{mean,cv}.png (the change shows in cv)"
printf '\noutputs in %s\n' "$dir"
