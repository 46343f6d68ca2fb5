#!/usr/bin/env python3
"""Why a process forked from one that had used vkstat refuses every call
(issue 41, defect 5; docs/python.md): forks while another thread calls in a
loop, and has each child use the library it inherited anyway, bypassing
the refusal. A child that says nothing within --wait seconds is hung: with
--gdb its thread's stack is written beside (it waits for a lock of Go's
scheduler, or for a P, that a thread of the parent held at the fork; those
threads do not exist in the child). Rerun it with a new Go to see whether
its runtime has become fork-safe.

    PYTHONPATH=python /usr/bin/python3 bench/fork_hang.py --forks 2000 [--gdb DIR]

2-core VM, Go 1.26.8, 2026-12-06: 38 of 2,000 children hung with the fork
gate of the time (capi/fork.go: calls held and waited for, a GC cycle
finished, before the fork; since removed), 3 in 275 with the parent's new
calls held in Python across the fork instead; without either (this
library), 10 of the first 62 (--forks 200 --stop-after 10 --wait 5).
"""

from __future__ import annotations

import argparse
import os
import select
import subprocess
import threading

import numpy as np

import vkstat
from vkstat import _lib


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--forks", type=int, default=1000)
    ap.add_argument("--wait", type=float, default=10.0, help="seconds a child has to answer")
    ap.add_argument("--gdb", help="folder for the stacks of hung children (gdb -p)")
    ap.add_argument("--stop-after", type=int, default=5, help="hung children to stop after")
    args = ap.parse_args()
    x, y = np.ones(3), np.ones(200_000)  # a call on the caller's thread, one on the session's
    s = vkstat.open("cpu")
    lib = _lib.lib
    stop = threading.Event()

    def busy() -> None:
        while not stop.is_set():
            s.map(y, y, 1, 1, 1)
            s.map(x, x, 1, 1, 1)

    th = threading.Thread(target=busy)
    th.start()
    hung = done = 0
    try:
        for _ in range(args.forks):
            r, w = os.pipe()
            pid = os.fork()
            if pid == 0:  # the child: the inherited library, the refusal bypassed
                os.close(r)
                _lib.lib, _lib._forked = lib, False
                try:
                    msg = str(vkstat.open("cpu").map(x, x, 1, 1, 1).tolist())
                except BaseException as e:
                    msg = repr(e)
                os.write(w, msg.encode())
                os._exit(0)
            os.close(w)
            done += 1
            if select.select([r], [], [], args.wait)[0]:
                msg = os.read(r, 1000).decode()
                if msg != "[3.0, 3.0, 3.0]":
                    print("child", pid, "said", msg, flush=True)
            else:
                hung += 1
                print("child", pid, "hung", flush=True)
                if args.gdb:
                    out = subprocess.run(["gdb", "-p", str(pid), "-batch", "-ex", "thread apply all bt"],
                                         capture_output=True, text=True)
                    with open(os.path.join(args.gdb, f"hung{pid}.txt"), "w") as f:
                        f.write(out.stdout + out.stderr)
                os.kill(pid, 9)
            os.close(r)
            os.waitpid(pid, 0)
            if hung >= args.stop_after:
                break
    finally:
        stop.set()
        th.join()
        s.close()
    print(f"{hung} of {done} children hung")


if __name__ == "__main__":
    main()
