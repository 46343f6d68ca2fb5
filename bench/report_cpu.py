#!/usr/bin/env python3
"""Runs the peer scripts on the workloads of a `vkstat bench --json` report
and turns both into a Markdown page of times and ratios.

Usage:
  report_cpu.py peers [--peer numpy|torch|cupy] [--repeat N] bench.json > peers.jsonl
  report_cpu.py report [--title T] [--command C] bench.json peers.jsonl [more.jsonl ...] > page.md

`peers` runs, for every case of the report that names a peer workload
("peer": {"script": ..., "args": [...]}), bench/peers/numpy_<script>.py (or
torch_ops.py <script>, cupy_ops.py <script>) with those arguments, and
prints the peers' JSON lines with a "key" that ties each one to its case.
A peer that is not installed (exit status 3) is skipped with a message, and
so is a workload that a peer does not implement (no <kind>_<script>.py and
<script> not in the OPS tuple of <kind>_ops.py: CuPy has no paco), without
failing.

`report` writes the page: the machine, the devices and their copy bandwidth,
then one table per workload with vkstat's upload, kernel, download and wall
times on each device, and the ratio peer time / vkstat time (above 1: vkstat
is faster). NumPy runs from host arrays to host arrays, so it is set against
vkstat's wall time. The GPU peers give two ratios: end to end against
vkstat's wall time, and computation alone against vkstat's kernel time.

`make bench-cpu` (scripts/bench-cpu.sh) and scripts/gpu-run.sh use it.
"""
import argparse
import ast
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PEER_NAMES = {"numpy": "NumPy", "torch": "PyTorch", "cupy": "CuPy"}


def peer_key(peer):
    return " ".join([peer["script"], *peer["args"]])


def workloads(bench):
    """Every distinct peer workload of the report, in order."""
    seen, out = set(), []
    for dev in bench["devices"]:
        for r in dev["results"]:
            p = r.get("peer")
            if p and peer_key(p) not in seen:
                seen.add(peer_key(p))
                out.append(p)
    return out


def ops_of(path):
    """The OPS tuple of a <kind>_ops.py peer, read without importing it
    (importing would need its GPU library); empty when there is none."""
    try:
        tree = ast.parse(open(path).read(), path)
    except OSError:
        return ()
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "OPS" for t in node.targets):
            return tuple(ast.literal_eval(node.value))
    return ()


def peer_command(peer, kind, python, repeat):
    """The command that runs peer kind on the workload, or None when that
    peer does not implement it (no <kind>_<script>.py, and <script> not in
    the OPS of <kind>_ops.py)."""
    own = os.path.join(HERE, "peers", f"{kind}_{peer['script']}.py")
    ops = os.path.join(HERE, "peers", f"{kind}_ops.py")
    if os.path.exists(own):
        # numpy_<op>.py, or a peer of its own such as torch_paco.py
        cmd = [python, own]
    elif peer["script"] in ops_of(ops):
        cmd = [python, ops, peer["script"]]
    else:
        return None
    return cmd + list(peer["args"]) + ["--repeat", str(repeat)]


def cmd_peers(args):
    bench = json.load(open(args.bench))
    status = 0
    for p in workloads(bench):
        cmd = peer_command(p, args.peer, args.python, args.repeat)
        if cmd is None:
            print(f"{args.peer} peer: {p['script']} not implemented, skipped ({peer_key(p)})", file=sys.stderr)
            continue
        print("running " + " ".join(cmd), file=sys.stderr)
        res = subprocess.run(cmd, capture_output=True, text=True)
        sys.stderr.write(res.stderr)
        if res.returncode == 3:
            print(f"{args.peer} peer not available, skipped", file=sys.stderr)
            return 0
        if res.returncode != 0:
            print(f"peer failed with exit status {res.returncode}", file=sys.stderr)
            status = 1
            continue
        for line in res.stdout.splitlines():
            if line.strip():
                rec = json.loads(line)
                rec["key"] = peer_key(p)
                print(json.dumps(rec), flush=True)
    return status


def fmt_ms(v):
    if v is None:
        return ""
    if v == 0:
        return "–"
    if v >= 100:
        return f"{v:.0f}"
    if v >= 10:
        return f"{v:.1f}"
    return f"{v:.3g}"


def fmt_ratio(peer_s, vk_ms):
    if not peer_s or not vk_ms:
        return "n/a"
    return f"{peer_s * 1e3 / vk_ms:.2f}"


def cmd_report(args):
    bench = json.load(open(args.bench))
    peers = []
    for path in args.peers:
        for line in open(path):
            if line.strip():
                peers.append(json.loads(line))
    rank = {k: i for i, k in enumerate(PEER_NAMES)}
    kinds = sorted({p["peer"] for p in peers}, key=lambda k: (rank.get(k, len(rank)), k))
    by_key = {(p["peer"], p["key"]): p for p in peers}
    host = bench["host"]
    out = []
    w = out.append
    w(f"# {args.title}")
    w("")
    w(f"- date: {bench['date'][:10]}")
    gpus = [d["device"] for d in bench["devices"] if d["device"]["path"] == "vulkan"]
    w(f"- machine: {host['cpu']}, {host['cpus']} CPUs ({host['os']}/{host['arch']}); "
      + (", ".join(f"{g['name']} ({g['type']}, {(g.get('driver') or '')} {(g.get('driver_info') or g.get('driver_version') or '')}".rstrip() + f", Vulkan {g['api_version']})" for g in gpus) or "no Vulkan device"))
    versions = []
    for k in kinds:
        p = next(x for x in peers if x["peer"] == k)
        v = p.get(k) or p.get("numpy") or "?"
        dev = f" on {p['device']}" if p.get("device") else ""
        versions.append(f"{PEER_NAMES.get(k, k)} {v}{dev}")
    if bench.get("load_avg"):
        w(f"- load average (1, 5, 15 min) at the start and end of the vkstat run: {' → '.join(bench['load_avg'])}"
          f" on {host['cpus']} CPUs")
    w(f"- vkstat {bench['vkstat_version']} ({host['go']}); peers: {', '.join(versions) or 'none'}")
    w(f"- command: `{args.command}`, which ran `{bench['command']}` and then the peer scripts of bench/peers "
      f"on the same workloads, in the same run; each figure is the median of {bench['repeat']} runs after "
      f"{'warm-up for a time' if bench['warmup'] < 0 else str(bench['warmup']) + ' warm-up'}")
    w("")
    w("Ratio = peer time / vkstat time: above 1 means vkstat is faster. vkstat's wall time is host arrays in to host")
    w("arrays out (uploads, kernels, downloads and host-side merging); kernel is GPU time from timestamps (on the CPU")
    w("path, the computation itself). NumPy is timed from arrays in memory to a new array, so it is set against the")
    w("wall time." + (" The GPU peers give two ratios: end to end vs vkstat's wall time / computation on device-resident"
                      " data vs vkstat's kernel time." if any(k != "numpy" for k in kinds) else ""))
    w("")
    w("## Copy bandwidth")
    w("")
    w("The reference for the '% of copy' column: read plus written bytes per second of a device-to-device copy")
    w("of 256 MiB, best of the runs. An operation above 100% has a working set that the caches serve better than")
    w("they serve the copy's 512 MiB of traffic.")
    w("")
    w("| device | copy bandwidth | measured with |")
    w("|---|---:|---|")
    for d in bench["devices"]:
        c = d["copy_bandwidth"]
        w(f"| {d['device']['label']} | {c['gb_per_s']:.1f} GB/s | {c['method']}, {c['bytes'] >> 20} MiB |")
    w("")

    # Group the rows of every device by workload.
    order, rows = [], {}
    for d in bench["devices"]:
        for r in d["results"]:
            k = (r["op"], r["case"], r["precision"])
            if k not in rows:
                order.append(k)
                rows[k] = []
            rows[k].append((d, r))
    for k in order:
        op, case, prec = k
        items = rows[k]
        r0 = items[0][1]
        peer = r0.get("peer")
        w(f"## {op} {case} {prec}")
        w("")
        mb = r0["work"]["bytes"] / 1e6
        w(f"{mb:.0f} MB moved at least (inputs read once, outputs written once); throughput in {r0['unit']}.")
        w("")
        head = "| implementation | upload ms | kernel ms | download ms | wall ms | throughput (wall) | kernel, % of copy |"
        sep = "|---|---:|---:|---:|---:|---:|---:|"
        for kind in kinds:
            head += f" vs {PEER_NAMES.get(kind, kind)} |"
            sep += "---:|"
        w(head)
        w(sep)
        peer_recs = {kind: by_key.get((kind, peer_key(peer))) if peer else None for kind in kinds}
        for kind, p in peer_recs.items():
            if not p:
                continue
            kern = p.get("kernel_median_s")
            cells = ["", fmt_ms(kern * 1e3) if kern else "", "", fmt_ms(p["median_s"] * 1e3), "", ""]
            w(f"| {PEER_NAMES.get(kind, kind)} | " + " | ".join(cells) + " |" + " |" * len(kinds))
        for d, r in items:
            name = f"vkstat, {d['device']['label']}"
            if r["status"] != "ok":
                w(f"| {name} | {r['status']}: {r.get('detail', '')} | | | | | |" + " |" * len(kinds))
                continue
            cpu = d["device"]["path"] == "cpu"
            frac = f"{100 * r['copy_fraction']:.0f}%" if r.get("copy_fraction") else "–"
            kern = fmt_ms(r["kernel_ms"]) if r["gpu_timed"] else "n/a"
            cells = ["–" if cpu else fmt_ms(r["upload_ms"]), kern, "–" if cpu else fmt_ms(r["download_ms"]),
                     fmt_ms(r["wall_ms"]), f"{r['throughput_wall']:.3g} {r['unit']}", frac]
            for kind in kinds:
                p = peer_recs[kind]
                if not p:
                    cells.append("n/a")
                elif p.get("kernel_median_s") is not None:
                    kr = fmt_ratio(p["kernel_median_s"], r["kernel_ms"] if r["gpu_timed"] else None)
                    cells.append(f"{fmt_ratio(p['median_s'], r['wall_ms'])} / {kr}")
                else:
                    cells.append(fmt_ratio(p["median_s"], r["wall_ms"]))
            w(f"| {name} | " + " | ".join(cells) + " |")
        if peer:
            w("")
            w(f"Peer workload: `{peer_key(peer)}`.")
        w("")
    sys.stdout.write("\n".join(out))
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("peers", help="run the peer scripts on the report's workloads")
    p.add_argument("--peer", default="numpy", choices=["numpy", "torch", "cupy"])
    p.add_argument("--repeat", type=int, default=10)
    p.add_argument("--python", default=sys.executable)
    p.add_argument("bench")
    r = sub.add_parser("report", help="write the Markdown page")
    r.add_argument("--title", default="CPU-machine benchmarks")
    r.add_argument("--command", default="make bench-cpu")
    r.add_argument("bench")
    r.add_argument("peers", nargs="*")
    args = ap.parse_args(argv)
    return cmd_peers(args) if args.cmd == "peers" else cmd_report(args)


if __name__ == "__main__":
    sys.exit(main())
