#!/usr/bin/env bash
# The README as a test: every ```sh block of README.md, top to bottom, in a
# clean clone of the repository (what a newcomer has: the committed files;
# a fresh folder with links to examples/, shaders/ and deploy/ where the
# tree is no git clone), with bin/vkstat first on PATH. A block right after
# the line <!-- readme-test: skip (why) --> is not run (make demo and make
# test themselves, a Slurm submission). `--device gpu` runs as `--device
# auto` (the CPU path or lavapipe where there is no GPU), so a machine
# without one runs every example. Each command line (with its \
# continuations) runs in one bash in the order written, so a file an
# example needs must come from an earlier one; the first that fails stops
# the run, named by its README line. A ```python block runs as one script
# with the Python of the venv an earlier example made (.venv), else
# python3. python3 is $PYTHON (/usr/bin/python3, whose NumPy the venvs see),
# and pip takes nothing from PyPI (PIP_NO_INDEX): CI is offline.
#
#   scripts/readme-test.sh [--readme FILE] [--bin BIN] [--keep]
#   scripts/readme-test.sh --self-check    # a README with a broken example must fail
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
readme=$root/README.md bin=$root/bin/vkstat keep=0
while [ $# -gt 0 ]; do
	case $1 in
	--readme) readme=$2; shift 2 ;;
	--bin) bin=$2; shift 2 ;;
	--keep) keep=1; shift ;;
	--self-check)
		tmp=$(mktemp -d)
		printf '# t\n\n```sh\nvkstat --version\n```\n\n<!-- readme-test: skip (never run) -->\n```sh\nfalse\n```\n\n```python\nprint("python ran")\n```\n\n```sh\nvkstat synth random --shape 3 --out a.npy\nvkstat reduce --in missing.npy --out-dir o/   # broken on purpose\n```\n' >"$tmp/README.md"
		out=$("$0" --readme "$tmp/README.md" --bin "$bin" 2>&1)
		rc=$?
		rm -rf "$tmp"
		if [ $rc -ne 0 ] && grep -q '^readme-test: README.md:18: vkstat reduce --in missing.npy' <<<"$out" && ! grep -q '^+ false' <<<"$out" && grep -q '^python ran$' <<<"$out"; then
			echo "readme-test self-check: a broken example fails the run, named by its line; a skipped block is not run; a python block runs"
			exit 0
		fi
		echo "readme-test self-check FAILED (exit $rc):"
		echo "$out"
		exit 1
		;;
	*) echo "readme-test: unknown option $1" >&2; exit 2 ;;
	esac
done
[ -x "$bin" ] || { echo "readme-test: $bin is not built (make build)" >&2; exit 2; }
top=$(mktemp -d "${TMPDIR:-/tmp}/vkstat-readme.XXXXXX")
[ $keep -eq 1 ] || trap 'rm -rf "$top"' EXIT
mkdir -p "$top/.bin"
ln -s "$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")" "$top/.bin/vkstat"
ln -s "$(command -v "${PYTHON:-/usr/bin/python3}")" "$top/.bin/python3"
work=$top/vkstat
if ! git clone --quiet "$root" "$work" 2>/dev/null; then
	mkdir -p "$work"
	for d in examples shaders deploy; do [ -e "$root/$d" ] && ln -s "$root/$d" "$work/$d"; done
fi
export PIP_NO_INDEX=1 PIP_DISABLE_PIP_VERSION_CHECK=1

# The command lines: "LINE<TAB>command", continuations joined; a python
# block is written to .readme-LINE.py and run by a command line.
python3 - "$readme" "$top" >"$top/.commands" <<'PY'
import re, shlex, sys
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
skip, inblock, cur, start = False, None, None, 0
for i, l in enumerate(lines, 1):
    if not inblock:
        if l.startswith("<!-- readme-test: skip"):
            skip = True
        elif l.strip() in ("```sh", "```python"):
            inblock, start, script = l.strip()[3:], i, []
        elif l.strip():
            skip = False
        continue
    if l.strip() == "```":
        if inblock == "python" and not skip:
            path = f"{sys.argv[2]}/.readme-{start}.py"
            open(path, "w", encoding="utf-8").write("\n".join(script) + "\n")
            print(f"{start}\tpy=python3; [ -x .venv/bin/python ] && py=.venv/bin/python; \"$py\" {shlex.quote(path)}")
        inblock, skip = None, False
        continue
    if skip:
        continue
    if inblock == "python":
        script.append(l)
        continue
    if cur is None:
        if not l.strip() or l.lstrip().startswith("#"):
            continue
        cur, start = "", i
    text = re.sub(r"\s+#\s.*$", "", l) if not l.rstrip().endswith("\\") else l
    if text.rstrip().endswith("\\"):
        cur += text.rstrip()[:-1] + " "
        continue
    cur += text
    cmd = re.sub(r"--device gpu\b", "--device auto", cur.strip())
    print(f"{start}\t{cmd}")
    cur = None
PY
n=0
while IFS=$'\t' read -r line cmd; do
	n=$((n + 1))
	echo "== README.md:$line: $cmd"
	if ! (cd "$work" && PATH="$top/.bin:$PATH" bash -euo pipefail -c "$cmd"); then
		echo "readme-test: README.md:$line: $cmd: failed (in $work)" >&2
		[ $keep -eq 1 ] || trap - EXIT
		exit 1
	fi
done <"$top/.commands"
echo "readme-test: all $n example commands of $(basename "$readme") ran"
