#!/usr/bin/env python3
"""Writes dist/vkstat-<version>-py3-none-<platform>.whl: the package in
python/vkstat with the shared library built from cmd/libvkstat, using only
the standard library (zipfile, hashlib): no pip, setuptools or wheel at
build time.

    python3 python/build_wheel.py --version "$(scripts/version.sh)" --out dist

It is also the PEP 517 build backend that pyproject.toml names (in-tree,
backend-path python/, no build requirements), so that ``pip install .``
in a clone builds the library with Go (go on PATH, the packages of
scripts/deps.sh build) and installs the package, ``pip install -e .``
builds it beside the sources, and the version is scripts/version.sh's:
the one vkstat.__version__ reports.

The tag is py3-none-<platform>: the package is pure Python over ctypes, so
any Python 3 on the platform the library was built for loads it. The
library needs only the C and C++ runtimes at load time (the Vulkan loader
is opened with dlopen when a device is used). Older vkstat wheels in the
output folder are removed, so that ``pip install dist/*.whl`` sees one.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import io
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
import time
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
PKG = HERE / "vkstat"
LIBNAME = "libvkstat.dylib" if sys.platform == "darwin" else "libvkstat.so"


def pep440(describe: str) -> str:
    """A PEP 440 version: scripts/version.sh's (0.1.0, 0.1.0+gabc.dirty)
    as it is; from git describe, v1.2.3 → 1.2.3, v1.2.3-4-gabc →
    1.2.3.post4+gabc, a bare hash abc → 0.0.0+gabc, with .dirty appended to
    the local part when the tree was dirty."""
    d = describe.strip()
    if re.fullmatch(r"\d+(?:\.\d+)*(?:\+[a-z0-9]+(?:\.[a-z0-9]+)*)?", d):
        return d
    dirty = d.endswith("-dirty")
    if dirty:
        d = d[: -len("-dirty")]
    m = re.fullmatch(r"v?(\d+(?:\.\d+)*)(?:-(\d+)-g([0-9a-f]+))?", d)
    if m:
        v = m.group(1)
        local = []
        if m.group(2):
            v += f".post{m.group(2)}"
            local.append("g" + m.group(3))
    elif re.fullmatch(r"[0-9a-f]{4,40}", d):
        v, local = "0.0.0", ["g" + d]
    elif d in ("", "dev"):
        v, local = "0.0.0", ["dev"]
    else:
        raise SystemExit(f"build_wheel: cannot make a version of {describe!r}")
    if dirty:
        local.append("dirty")
    return v + ("+" + ".".join(local) if local else "")


def platform_tag() -> str:
    return re.sub(r"[-.]", "_", sysconfig.get_platform())


def record_hash(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def metadata(version: str) -> str:
    return f"""Metadata-Version: 2.1
Name: vkstat
Version: {version}
Summary: Batched statistics and small dense linear algebra on any Vulkan GPU, or on the CPU, on NumPy arrays
Requires-Python: >=3.9
Requires-Dist: numpy
Description-Content-Type: text/markdown

vkstat's Go library through its C ABI: map, reduce, cov, chol and verify on
NumPy arrays (and anything with __array__ or DLPack on the CPU), lent by
pointer without a copy. Needs the Vulkan loader (libvulkan1) to use a GPU or
lavapipe; the CPU path needs nothing. See docs/python.md.
"""


def build(version: str, out: Path, lib: Path) -> Path:
    if not lib.is_file():
        raise SystemExit(f"build_wheel: {lib} is missing; build it first (make pylib)")
    files: list[tuple[str, bytes, int]] = []
    for p in sorted(PKG.glob("*.py")) + [PKG / "py.typed"]:
        files.append((f"vkstat/{p.name}", p.read_bytes(), 0o644))
    files.append((f"vkstat/{LIBNAME}", lib.read_bytes(), 0o755))
    return write_wheel(version, out, files)


def write_wheel(version: str, out: Path, files: list[tuple[str, bytes, int]]) -> Path:
    """Writes the wheel of files (path in the wheel, content, mode) with its
    .dist-info, atomically, as the only vkstat wheel in out."""
    tag = f"py3-none-{platform_tag()}"
    name = f"vkstat-{version}-{tag}.whl"
    dist_info = f"vkstat-{version}.dist-info"
    files = list(files)
    files.append((f"{dist_info}/METADATA", metadata(version).encode(), 0o644))
    files.append((f"{dist_info}/WHEEL", (
        "Wheel-Version: 1.0\nGenerator: vkstat build_wheel.py\nRoot-Is-Purelib: false\n"
        f"Tag: {tag}\n").encode(), 0o644))
    files.append((f"{dist_info}/top_level.txt", b"vkstat\n", 0o644))
    record = "".join(f"{path},{record_hash(data)},{len(data)}\n" for path, data, _ in files)
    record += f"{dist_info}/RECORD,,\n"
    files.append((f"{dist_info}/RECORD", record.encode(), 0o644))

    out.mkdir(parents=True, exist_ok=True)
    # Reproducible: a fixed date (SOURCE_DATE_EPOCH when set), fixed modes.
    epoch = int(os.environ.get("SOURCE_DATE_EPOCH", "315532800"))
    date = time.gmtime(max(epoch, 315532800))[:6]
    fd, tmp = tempfile.mkstemp(prefix=".vkstat-", suffix=".whl", dir=out)
    os.close(fd)
    try:
        with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED) as z:
            for path, data, mode in files:
                info = zipfile.ZipInfo(path, date_time=date)
                info.external_attr = (0o100000 | mode) << 16
                info.compress_type = zipfile.ZIP_DEFLATED
                z.writestr(info, data)
        os.chmod(tmp, 0o644)
        for old in out.glob("vkstat-*.whl"):
            if old.name != name:
                old.unlink()
        os.replace(tmp, out / name)
    except BaseException:
        os.unlink(tmp)
        raise
    return out / name


# ---- PEP 517 and PEP 660 hooks: pip install . and pip install -e . ----


def project_version() -> str:
    """scripts/version.sh's version (the VERSION file's release alone where
    sh or the script cannot run)."""
    try:
        out = subprocess.run(["sh", str(ROOT / "scripts" / "version.sh")], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        out = (ROOT / "VERSION").read_text()
    return pep440(out)


def has_numpy(python: str) -> str | None:
    """NumPy's version as python imports it (its own site-packages, not the
    build's isolated ones: -E), or None."""
    try:
        p = subprocess.run([python, "-E", "-c", "import numpy; print(numpy.__version__)"], capture_output=True, text=True,
                           timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return p.stdout.strip() if p.returncode == 0 else None


def check_numpy() -> None:
    """Refuses, before the minutes of the Go build, to build for a Python
    without NumPy: pip would look for it on PyPI only afterwards, and fail
    where there is none to reach ("No matching distribution found for
    numpy"). Names the Pythons on the machine that have it."""
    if has_numpy(sys.executable) is not None:
        return
    others = []  # (a venv's python links to its base: compare by name, not by file)
    for c in dict.fromkeys(filter(None, [shutil.which("python3"), "/usr/bin/python3", "/usr/local/bin/python3"])):
        if c != sys.executable and (v := has_numpy(c)) is not None:
            others.append(f"{c} (NumPy {v})")
    where = ("; " + ", ".join(others) + " has it: make the virtual environment from it "
             f"({others[0].split()[0]} -m venv --system-site-packages .venv)") if others else ""
    raise SystemExit(f"vkstat needs NumPy, and {sys.executable} (Python {sys.version.split()[0]}) has none{where}; "
                     f"or install NumPy into it first ({sys.executable} -m pip install numpy, from PyPI)")


def build_library(version: str, lib: Path) -> Path:
    """Builds cmd/libvkstat at lib with Go, with version in it."""
    go = shutil.which("go")
    if go is None:
        raise SystemExit("vkstat: building the package builds its Go library: it needs Go 1.24 or newer on PATH "
                         "and the packages scripts/deps.sh build installs (README.md, Set-up)")
    cmd = [go, "build", "-buildmode=c-shared", "-ldflags", f"-s -w -extldflags=-Wl,--exclude-libs,ALL -X github.com/vkstat/vkstat/capi.Version={version}",
           "-o", str(lib), "./cmd/libvkstat"]
    if subprocess.run(cmd, cwd=ROOT).returncode != 0:
        raise SystemExit(f"vkstat: {' '.join(cmd)} failed; scripts/deps.sh build says what is missing")
    lib.with_suffix(".h").unlink(missing_ok=True)
    return lib


def build_wheel(wheel_directory: str, config_settings: dict | None = None, metadata_directory: str | None = None) -> str:
    check_numpy()
    version = project_version()
    with tempfile.TemporaryDirectory() as tmp:
        lib = build_library(version, Path(tmp) / LIBNAME)
        return build(version, Path(wheel_directory), lib).name


def build_editable(wheel_directory: str, config_settings: dict | None = None, metadata_directory: str | None = None) -> str:
    """A wheel that puts python/ on the path (a .pth file), with the library
    built beside the sources where make pylib puts it."""
    check_numpy()
    version = project_version()
    build_library(version, PKG / LIBNAME)
    return write_wheel(version, Path(wheel_directory), [("vkstat_editable.pth", f"{HERE}\n".encode(), 0o644)]).name


def build_sdist(sdist_directory: str, config_settings: dict | None = None) -> str:
    """The files git tracks, under vkstat-<version>/, with PKG-INFO."""
    version = project_version()
    try:
        listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        raise SystemExit(f"vkstat: an sdist is made from a git clone ({e})")
    base = f"vkstat-{version}"
    out = Path(sdist_directory) / f"{base}.tar.gz"
    with tarfile.open(out, "w:gz", format=tarfile.PAX_FORMAT) as t:
        for rel in sorted(f for f in listed.decode().split("\0") if f):
            if (ROOT / rel).is_file():
                t.add(ROOT / rel, arcname=f"{base}/{rel}", recursive=False)
        info = tarfile.TarInfo(f"{base}/PKG-INFO")
        data = metadata(version).encode()
        info.size, info.mode, info.mtime = len(data), 0o644, int(os.environ.get("SOURCE_DATE_EPOCH", "315532800"))
        t.addfile(info, io.BytesIO(data))
    return out.name


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--version", default="dev", help="scripts/version.sh's output (or git describe's, made PEP 440)")
    ap.add_argument("--out", default="dist", type=Path, help="output folder")
    ap.add_argument("--lib", default=PKG / LIBNAME, type=Path, help="the shared library to bundle")
    args = ap.parse_args()
    print(build(pep440(args.version), args.out, args.lib))


if __name__ == "__main__":
    main()
