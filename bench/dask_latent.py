"""vkstat.dask.latent(moments, corr) against the same Dask graph computing
with NumPy, on one LocalCluster of worker processes, in the same run (issue
43): a (N, 16, 16, 64, 64) float32 latent array chunked by sample, persisted
in the workers first so that both time the statistics only; the moments
(mean, var, std, min, max, skew, kurt over H, W) and the channel correlation
of every sample. The NumPy graph is what a Dask user writes: da.mean, da.var,
da.min, da.max and the third and fourth central moments over axes (3, 4),
and a per-chunk batched np.einsum correlation (np.corrcoef per sample,
vectorised). The scheduler's overhead per chunk is the time of a graph of
as many chunks doing nothing, divided by their count.

With --rows R the chunks cut each sample's rows too (H in chunks of R):
vkstat.dask.latent then merges the chunks' co-moment states (latent.Block,
on the workers' CPUs in float64), and the NumPy graph's correlation reads
the rows made one chunk again (x.rechunk), as a Dask user would.

Usage: python3 bench/dask_latent.py [--samples 64] [--chunk 4] [--rows 64] [--workers 2] [--repeat 3]
(PYTHONPATH=python after make pylib). Prints a Markdown table.
"""
import argparse
import platform
import time

import numpy as np
import dask
import dask.array as da
from dask.distributed import Client, LocalCluster, wait

import vkstat.dask as vd


def numpy_graph(x):
    """The moments over (H, W) and the channel correlation per sample, as
    Dask arrays computed by NumPy in each chunk."""
    ax = (3, 4)
    m = x.mean(axis=ax, dtype=np.float64)
    d = x.astype(np.float64) - m[..., None, None]
    m2 = (d ** 2).mean(axis=ax)
    m3 = (d ** 3).mean(axis=ax)
    m4 = (d ** 4).mean(axis=ax)
    out = {"mean": m, "var": m2, "std": da.sqrt(m2), "min": x.min(axis=ax), "max": x.max(axis=ax),
           "skew": m3 / m2 ** 1.5, "kurt": m4 / m2 ** 2 - 3}

    def corr(b):
        n, c = b.shape[:2]
        y = b.reshape(n, c, -1).astype(np.float64)
        y -= y.mean(axis=2, keepdims=True)
        cov = np.einsum("nct,ndt->ncd", y, y)
        s = np.sqrt(np.einsum("ncc->nc", cov))
        return cov / s[:, :, None] / s[:, None, :]

    c = x.shape[1]
    x = x.rechunk({3: -1})
    out["corr"] = x.map_blocks(corr, drop_axis=[3, 4], chunks=(x.chunks[0], (c,), (c,)), dtype=np.float64)
    return out


def best(fn, repeat):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        r = fn()
        times.append(time.perf_counter() - t)
    return min(times), r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--samples", type=int, default=64)
    ap.add_argument("--chunk", type=int, default=4, help="samples per chunk")
    ap.add_argument("--rows", type=int, default=64, help="rows per chunk (64: whole samples)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    shape = (a.samples, 16, 16, 64, 64)
    with LocalCluster(n_workers=a.workers, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        rs = da.random.RandomState(43)
        x = rs.standard_normal(shape, chunks=(a.chunk, 16, 16, a.rows, 64)).astype(np.float32)
        x = x.persist()
        wait(x)
        chunks = x.npartitions

        def run_vkstat():
            return vd.latent(x, ("moments", "corr"), axes=(-2, -1), split_every=chunks)

        def run_numpy():
            return dask.compute(numpy_graph(x))[0]

        run_vkstat()  # each worker's session and pipelines made once, as a long job has them
        run_numpy()
        tv, rv = best(run_vkstat, a.repeat)
        tn, rn = best(run_numpy, a.repeat)
        for k in ("mean", "var", "std", "min", "max", "skew", "kurt", "corr"):
            assert np.allclose(getattr(rv, k), rn[k], rtol=1e-4, atol=1e-5), k
        noop = x.map_blocks(lambda b: np.zeros((1,) * 5, np.float32), chunks=tuple((1,) * n for n in x.numblocks))
        to, _ = best(lambda: noop.compute(), a.repeat)
        import vkstat
        devices = sorted(set(client.run(lambda: vkstat.default_session().device.get("name")).values()))
        gib = np.prod(shape) * 4 / 2 ** 30
        print(f"| shape | chunks | workers | vkstat.dask.latent | Dask + NumPy | ratio | scheduler per chunk |")
        print(f"|---|---|---|---|---|---|---|")
        print(f"| {shape} float32 ({gib:.2f} GiB) | {chunks} of {a.chunk} samples{'' if a.rows >= 64 else f' × {a.rows} rows'} | {a.workers} processes | "
              f"{tv:.2f} s | {tn:.2f} s | {tn / tv:.1f}× | {to / chunks * 1e3:.1f} ms |")
        print(f"\nworkers' device: {', '.join(devices)}; machine: {platform.node()}, {platform.machine()}, "
              f"best of {a.repeat}; dask {dask.__version__}")


if __name__ == "__main__":
    main()
