#!/usr/bin/env python3
"""bench/peers/peers.py -- gnnref side by side with DGL and PyTorch (`make bench-peers`).

Run by bench/peers/run.sh with the interpreter of the peers' virtual environment. The parent
process (this file, `run`) drives gnnref's programs and a persistent peer worker (this file,
`worker`, one subprocess that holds DGL, PyTorch and the loaded data), alternating them repeat
by repeat (gnnref first on even repeats, the peer first on odd ones), so that both sides see
the same machine state. docs/performance.md says what each workload is.

Workloads (--only picks some): sample, idmap, aggregate, sage, gcn.
Output: a markdown table on stdout and the JSON report --out/report.json.
"""
import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gnnfile  # noqa: E402

WORKLOADS = ("sample", "idmap", "aggregate", "sage", "gcn")


def stats(xs):
    xs = [float(x) for x in xs]
    return {"median": statistics.median(xs), "min": min(xs), "max": max(xs), "runs": xs}


def log(msg):
    print(f"bench-peers: {msg}", file=sys.stderr, flush=True)


# ----------------------------------------------------------------------------------------------
# the peer worker: one JSON command per line on stdin, one JSON answer per line on stdout
# ----------------------------------------------------------------------------------------------
class Worker:
    def __init__(self, threads):
        import numpy as np
        import torch
        import dgl
        self.np, self.torch, self.dgl = np, torch, dgl
        torch.set_num_threads(threads)
        self.threads = threads
        self.cache = {}

    def versions(self):
        import numpy
        import scipy
        return {"torch": self.torch.__version__, "dgl": self.dgl.__version__, "numpy": numpy.__version__,
                "scipy": scipy.__version__, "python": platform.python_version(),
                "torch_threads": self.torch.get_num_threads()}

    def _file(self, path):
        key = ("file", path)
        if key not in self.cache:
            self.cache[key] = gnnfile.GnnFile(path)
        return self.cache[key]

    def _graph(self, path):
        """The gnnref graph as a DGL graph in CSC (row v of gnnref's CSR lists v's in-neighbors:
        the CSC of DGL's in-edges, the format the fused sampler wants)."""
        key = ("graph", path)
        if key not in self.cache:
            np, torch = self.np, self.torch
            f = self._file(path)
            indptr = torch.from_numpy(np.array(f.indptr))
            indices = torch.from_numpy(np.array(f.indices))
            g = self.dgl.graph(("csc", (indptr, indices, torch.tensor([], dtype=torch.int64))),
                               num_nodes=f.n)
            self.cache[key] = g.formats(["csc"])
        return self.cache[key]

    def drop(self, prefix=""):
        for k in [k for k in self.cache if k[1].startswith(prefix)]:
            del self.cache[k]
        return {}

    def _raw(self, path, dtype):
        return self.np.fromfile(path, dtype=dtype)

    def sample(self, data, prefix, fanouts):
        """DGL's fused neighbor sampler (NeighborSampler(fused=True) -> sample_neighbors_fused)
        on the exported seed batches, one pass over them; only the sampling calls are timed."""
        torch = self.torch
        g = self._graph(data)
        seeds = torch.from_numpy(self._raw(prefix + ".seeds.i64", self.np.int64))
        lens = self._raw(prefix + ".batches.i64", self.np.int64).tolist()
        # DGL lists fanouts input layer first, as gnnref (sample_blocks applies the last to the seeds)
        sampler = self.dgl.dataloading.NeighborSampler(list(fanouts), fused=True)
        # warm-up on batch 0 (thread pool, the mapping array of the fused sampler), untimed
        sampler.sample_blocks(g, seeds[:lens[0]])
        edges, secs, pos = 0, 0.0, 0
        for n in lens:
            b = seeds[pos:pos + n]
            pos += n
            t0 = time.perf_counter()
            _, _, blocks = sampler.sample_blocks(g, b)
            secs += time.perf_counter() - t0
            edges += sum(int(bl.num_edges()) for bl in blocks)
        return {"seconds": secs, "edges": edges, "edges_per_s": edges / secs}

    def _blocks(self, prefix, layers):
        key = ("blocks", prefix)
        if key not in self.cache:
            np = self.np
            out = []
            for l in range(layers):
                src = self._raw(f"{prefix}.blk{l}.src", np.int64)
                indptr = self._raw(f"{prefix}.blk{l}.indptr", np.int64)
                indices = self._raw(f"{prefix}.blk{l}.indices", np.int32).astype(np.int64)
                out.append((src, indptr, indices))
            self.cache[key] = out
        return self.cache[key]

    def idmap(self, prefix, n, repeats):
        """dgl.to_block on the input layer's frontier: a graph over all n vertices whose edges
        are the sampled (src -> dst) pairs in gnnref's draw order, dst_nodes = the layer's dst
        vertices in seed order. Only to_block is timed."""
        np, torch = self.np, self.torch
        src, indptr, indices = self._blocks(prefix, 1)[0]
        n_dst = indptr.shape[0] - 1
        dst_local = np.repeat(np.arange(n_dst, dtype=np.int64), np.diff(indptr))
        u = torch.from_numpy(src[indices])
        v = torch.from_numpy(src[dst_local])
        frontier = self.dgl.graph((u, v), num_nodes=int(n))
        dst_nodes = torch.from_numpy(src[:n_dst].copy())
        self.dgl.to_block(frontier, dst_nodes)  # warm-up
        times = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            blk = self.dgl.to_block(frontier, dst_nodes)
            times.append(time.perf_counter() - t0)
        got = blk.srcdata[self.dgl.NID].numpy()
        same = got.shape[0] == src.shape[0] and bool((got == src).all())
        moved, first = -1, -1
        if got.shape[0] == src.shape[0] and set(got.tolist()) == set(src.tolist()):
            # vertices out of first-appearance order: n_src less the longest run of DGL's src
            # list that is in our order (a longest increasing subsequence of our positions), so
            # that one vertex placed early counts once, not once per position it shifts
            import bisect
            pos = {int(v): i for i, v in enumerate(src.tolist())}
            tails = []
            for v in got.tolist():
                k = bisect.bisect_left(tails, pos[v])
                if k == len(tails):
                    tails.append(pos[v])
                else:
                    tails[k] = pos[v]
            moved = int(got.shape[0] - len(tails))
            diff = np.nonzero(got != src)[0]
            first = int(diff[0]) if diff.shape[0] else -1
        return {"seconds": statistics.median(times), "runs": times, "n_src": int(got.shape[0]),
                "order_equal": same, "vertices_out_of_order": moved, "first_differing_position": first}

    def aggregate(self, prefix, layers, d, inner):
        """Mean aggregation at width d over the exported blocks (all layers one iteration):
        DGL update_all(copy_u, mean) and torch.sparse.mm with a COO matrix of 1/deg values."""
        np, torch, dgl = self.np, self.torch, self.dgl
        key = ("aggprep", prefix)
        if key not in self.cache:
            blks, mats = [], []
            for src, indptr, indices in self._blocks(prefix, layers):
                n_dst, n_src = indptr.shape[0] - 1, src.shape[0]
                ip, ix = torch.from_numpy(indptr), torch.from_numpy(indices)
                blks.append(dgl.create_block(("csc", (ip, ix, torch.tensor([], dtype=torch.int64))),
                                             num_src_nodes=n_src, num_dst_nodes=n_dst).formats(["csc"]))
                deg = np.diff(indptr)
                rows = np.repeat(np.arange(n_dst, dtype=np.int64), deg)
                vals = (1.0 / np.maximum(deg, 1)).astype(np.float32)[rows]
                mats.append(torch.sparse_coo_tensor(torch.from_numpy(np.stack([rows, indices])),
                                                    torch.from_numpy(vals), (n_dst, n_src)).coalesce())
            max_src = max(b.num_src_nodes() for b in blks)
            gen = torch.Generator().manual_seed(1)
            x = torch.rand((max_src, d), generator=gen, dtype=torch.float32)
            self.cache[key] = (blks, mats, x)
        blks, mats, x = self.cache[key]

        def dgl_mean():
            for b in blks:
                with b.local_scope():
                    b.srcdata["h"] = x[:b.num_src_nodes()]
                    b.update_all(dgl.function.copy_u("h", "m"), dgl.function.mean("m", "o"))
                    b.dstdata["o"]

        def torch_spmm():
            for m in mats:
                torch.sparse.mm(m, x[:m.shape[1]])

        out = {}
        for name, fn in (("dgl_copy_u_mean", dgl_mean), ("torch_sparse_mm", torch_spmm)):
            fn()  # warm-up
            t0 = time.perf_counter()
            for _ in range(inner):
                fn()
            out[name] = (time.perf_counter() - t0) / inner
        return out

    def sage(self, data, hidden, fanouts, batch, epochs, seed):
        """DGL GraphSAGE (mean), 2 layers, dropout on every layer's input as gnnref's sage
        (docs/models.md), Adam(lr 0.01, weight decay 5e-4), DGL's DataLoader with the default
        NeighborSampler over the train ids, shuffled; the epoch's training loop is timed, no
        evaluation inside it."""
        np, torch, dgl = self.np, self.torch, self.dgl
        import torch.nn as nn
        import torch.nn.functional as F
        from dgl.nn import SAGEConv
        torch.manual_seed(seed)
        f = self._file(data)
        g = self._graph(data)
        feat = torch.from_numpy(np.array(f.features))
        labels = torch.from_numpy(np.array(f.labels).astype(np.int64))
        train = torch.from_numpy(f.ids(gnnfile.SPLIT_TRAIN))

        class SAGE(nn.Module):
            def __init__(s, fin, hid, ncls):
                super().__init__()
                s.layers = nn.ModuleList([SAGEConv(fin, hid, "mean"), SAGEConv(hid, ncls, "mean")])
                s.drop = nn.Dropout(0.5)

            def forward(s, blocks, h):
                for i, (layer, blk) in enumerate(zip(s.layers, blocks)):
                    h = layer(blk, s.drop(h))
                    if i + 1 < len(s.layers):
                        h = F.relu(h)
                return h

        model = SAGE(f.num_features, hidden, int(f.num_classes))
        opt = torch.optim.Adam(model.parameters(), lr=0.01, weight_decay=5e-4)
        sampler = dgl.dataloading.NeighborSampler(list(fanouts))
        loader = dgl.dataloading.DataLoader(g, train, sampler, batch_size=batch, shuffle=True,
                                            drop_last=False, num_workers=0)
        times, losses = [], []
        for _ in range(epochs):
            model.train()
            t0 = time.perf_counter()
            tot, steps = 0.0, 0
            for input_nodes, output_nodes, blocks in loader:
                logits = model(blocks, feat[input_nodes])
                loss = F.cross_entropy(logits, labels[output_nodes])
                opt.zero_grad()
                loss.backward()
                opt.step()
                tot += float(loss)
                steps += 1
            times.append(time.perf_counter() - t0)
            losses.append(tot / max(steps, 1))
        return {"epoch_s": times, "loss": losses, "steps": steps}

    def gcn(self, data, hidden, epochs, seed):
        """Kipf & Welling GCN in plain PyTorch: dense row-normalized input features, A_hat =
        D^-1/2 (A + I) D^-1/2 as a torch sparse COO matrix, Glorot weights, dropout 0.5 on
        both layers' inputs, Adam(lr 0.01) with weight decay 5e-4 on the first layer, full
        batch, `epochs` epochs; per-epoch training time and the final test accuracy (over the
        test vertices with a label)."""
        np, torch = self.np, self.torch
        import torch.nn.functional as F
        key = ("gcnprep", data)
        f = self._file(data)
        if key not in self.cache:
            n = f.n
            indptr, indices = np.array(f.indptr), np.array(f.indices)
            rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr))
            keep = rows != indices
            rows = np.concatenate([rows[keep], np.arange(n)])
            cols = np.concatenate([indices[keep], np.arange(n)])
            deg = np.bincount(rows, minlength=n).astype(np.float64)
            dinv = 1.0 / np.sqrt(deg)
            vals = (dinv[rows] * dinv[cols]).astype(np.float32)
            A = torch.sparse_coo_tensor(torch.from_numpy(np.stack([rows, cols])), torch.from_numpy(vals),
                                        (n, n)).coalesce()
            X = np.array(f.features, dtype=np.float32)
            s = X.sum(1, keepdims=True)
            X = X / np.where(s == 0, 1, s)
            labels = np.array(f.labels).astype(np.int64)
            test = f.ids(gnnfile.SPLIT_TEST)
            test = test[labels[test] >= 0]
            self.cache[key] = (A, torch.from_numpy(X), torch.from_numpy(labels),
                               torch.from_numpy(f.ids(gnnfile.SPLIT_TRAIN)), torch.from_numpy(test))
        A, X, y, train, test = self.cache[key]
        torch.manual_seed(seed)
        C = int(f.num_classes)

        def glorot(i, o):
            w = torch.empty(i, o)
            torch.nn.init.xavier_uniform_(w)
            return w.requires_grad_()

        W1, b1 = glorot(X.shape[1], hidden), torch.zeros(hidden, requires_grad=True)
        W2, b2 = glorot(hidden, C), torch.zeros(C, requires_grad=True)
        opt = torch.optim.Adam([{"params": [W1], "weight_decay": 5e-4},
                                {"params": [b1, W2, b2], "weight_decay": 0.0}], lr=0.01)

        def forward(training):
            h = F.dropout(X, 0.5, training)
            h = F.relu(torch.sparse.mm(A, h @ W1) + b1)
            h = F.dropout(h, 0.5, training)
            return torch.sparse.mm(A, h @ W2) + b2

        times = []
        for _ in range(epochs):
            t0 = time.perf_counter()
            loss = F.cross_entropy(forward(True)[train], y[train])
            opt.zero_grad()
            loss.backward()
            opt.step()
            times.append(time.perf_counter() - t0)
        with torch.no_grad():
            acc = float((forward(False)[test].argmax(1) == y[test]).float().mean())
        return {"epoch_s": statistics.median(times), "test_acc": acc, "loss": float(loss)}


def worker_main(threads):
    try:
        w = Worker(threads)
    except Exception as e:  # noqa: BLE001
        print(json.dumps({"error": f"cannot import the peers: {e!r}"}), flush=True)
        return 1
    for line in sys.stdin:
        cmd = json.loads(line)
        op = cmd.pop("op")
        try:
            out = getattr(w, op)(**cmd)
        except Exception as e:  # noqa: BLE001
            import traceback
            out = {"error": f"{op}: {e!r}", "trace": traceback.format_exc()}
        print(json.dumps(out), flush=True)
    return 0


def wait_policy_env(policy):
    """OMP_WAIT_POLICY for both sides: gnnref's tool sets passive itself unless the user chose
    (cli/main.c); the peers' libgomp (torch's and DGL's) spins by default, and on a busy machine
    a spinning 2-thread region collapses (a DGL SAGE epoch on a 20k SBM: 11.6 s spinning, 0.55 s
    passive, under a load average of 4). 'default' leaves the variable unset for the peers."""
    env = dict(os.environ)
    if policy == "default":
        env.pop("OMP_WAIT_POLICY", None)
    else:
        env["OMP_WAIT_POLICY"] = policy
    return env


class Peer:
    def __init__(self, threads, policy):
        env = dict(wait_policy_env(policy), OMP_NUM_THREADS=str(threads), MKL_NUM_THREADS=str(threads),
                   DGLBACKEND="pytorch", PYTHONWARNINGS="ignore")
        self.p = subprocess.Popen([sys.executable, os.path.abspath(__file__), "worker", "--threads", str(threads)],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)

    def __call__(self, op, **kw):
        self.p.stdin.write(json.dumps(dict(op=op, **kw)) + "\n")
        self.p.stdin.flush()
        line = self.p.stdout.readline()
        if not line:
            raise RuntimeError(f"the peer worker died during {op}")
        out = json.loads(line)
        if "error" in out:
            raise RuntimeError(out["error"] + "\n" + out.get("trace", ""))
        return out

    def close(self):
        self.p.stdin.close()
        self.p.wait()


# ----------------------------------------------------------------------------------------------
# the driver
# ----------------------------------------------------------------------------------------------
class Driver:
    def __init__(self, a):
        self.a = a
        self.out = a.out
        os.makedirs(self.out, exist_ok=True)
        self.commands = {}
        self.results = {}

    def sh(self, argv, key=None, env=None, capture=True):
        """Run one gnnref-side command; record the first command of each kind."""
        if key and key not in self.commands:
            self.commands[key] = " ".join(argv)
        e = dict(wait_policy_env(self.a.omp_wait_policy if self.a.omp_wait_policy != "default" else "passive"),
                 **(env or {}))
        r = subprocess.run(argv, stdout=subprocess.PIPE if capture else None, stderr=subprocess.PIPE,
                           text=True, env=e)
        if r.returncode != 0:
            raise RuntimeError(f"{' '.join(argv)} failed ({r.returncode}):\n{r.stderr[-2000:]}")
        return r.stdout

    def gnnref(self, *args, key=None):
        return self.sh([self.a.gnnref, *args], key=key)

    def ensure(self, path, argv):
        if not os.path.exists(path):
            log(f"generating {path}")
            self.sh(argv)
        return path

    def order(self, r):
        return (0, 1) if r % 2 == 0 else (1, 0)

    # -- sampling --------------------------------------------------------------------------
    def rmat(self):
        s = self.a.scale
        # the name and the parameters gnnref-bench's cache uses (bench/bench_sample.c), so
        # the aggregation study reads this file with GNN_BENCH_CACHE_DIR = the output folder
        path = os.path.join(self.out, f"rmat-s{s}-e16.gnn")
        return self.ensure(path, [self.a.gnnref, "gen", "rmat", "--scale", str(s), "--edge-factor", "16",
                                  "--seed", "1", "--threads", str(self.a.threads), "-o", path])

    def export_rmat(self):
        data = self.rmat()
        prefix = os.path.join(self.out, f"rmat-s{self.a.scale}")
        argv = [self.a.tool, "export", data, prefix, "1000", str(self.a.batches), "1", "15,10,5"]
        self.commands["export"] = " ".join(argv)
        info = json.loads(self.sh(argv))
        return data, prefix, info

    def w_sample(self, peer):
        a = self.a
        data, prefix, info = self.export_rmat()
        self.results["graphs"] = self.results.get("graphs", {})
        self.results["graphs"]["rmat"] = {"path": data, "n": info["n"], "nnz": info["nnz"],
                                          "batch0_blocks": info["blocks"]}
        g_eps, p_eps, ceil, per_read, g_edges, p_edges = [], [], [], [], [], []
        jpath = os.path.join(self.out, "sample.json")
        for r in range(a.repeats):
            for side in self.order(r):
                if side == 0:
                    self.gnnref("sample", "--data", data, "--impl", "opt", "--variant", "fused", "--idmap", "ordered",
                                "--fanouts", "15,10,5", "--batch", "1000", "--batches", str(a.batches),
                                "--seed", "1", "--threads", str(a.threads), "--json", jpath, key="sample")
                    js = json.load(open(jpath))
                    eps = js["edges_per_s"]
                    g_eps.append(eps)
                    g_edges.append(js["edges_sampled"])
                    rr = json.loads(self.sh([a.randread, "1024", str(a.threads), "0.5"], key="randread"))
                    ceil.append(rr["reads_per_s"])
                    per_read.append(eps / rr["reads_per_s"])
                else:
                    o = peer("sample", data=data, prefix=prefix, fanouts=[15, 10, 5])
                    p_eps.append(o["edges_per_s"])
                    p_edges.append(o["edges"])
            log(f"sample {r + 1}/{a.repeats}: gnnref {g_eps[-1] / 1e6:.1f} M edges/s, "
                f"DGL {p_eps[-1] / 1e6:.1f}, reads {ceil[-1] / 1e6:.1f} M/s")
        peer("drop", prefix=data)
        self.results["sample"] = {
            "unit": "sampled edges/s (higher is better)",
            "gnnref": stats(g_eps), "dgl_fused": stats(p_eps),
            "ratio_gnnref_over_dgl": stats([g / p for g, p in zip(g_eps, p_eps)]),
            "edges_sampled_per_run": {"gnnref": g_edges[0], "dgl": p_edges[0]},
            "random_reads_per_s": stats(ceil),
            "edges_per_random_read": stats(per_read),
            "acceptance": {"ratio_min": 2.0, "edges_per_random_read_min": 0.5},
        }

    # -- ID map ------------------------------------------------------------------------------
    def w_idmap(self, peer):
        a = self.a
        data, prefix, info = self.export_rmat()
        ordered, dense, dgl_t, order_eq = [], [], [], []
        inner = 5
        for r in range(a.repeats):
            for side in self.order(r):
                if side == 0:
                    j = json.loads(self.sh([a.tool, "idmap", data, prefix, str(a.threads), str(inner)], key="idmap"))
                    ordered.append(j["ordered_median"])
                    dense.append(j["dense_median"])
                    layer = {k: j[k] for k in ("n_dst", "n_src", "nnz")}
                else:
                    o = peer("idmap", prefix=prefix, n=info["n"], repeats=inner)
                    dgl_t.append(o["seconds"])
                    order_eq.append(o["vertices_out_of_order"])
            log(f"idmap {r + 1}/{a.repeats}: ordered {ordered[-1] * 1e3:.2f} ms, dense {dense[-1] * 1e3:.2f} ms, "
                f"DGL to_block {dgl_t[-1] * 1e3:.2f} ms")
        self.results["idmap"] = {
            "unit": "seconds per ID map of the input layer of batch 0 (lower is better)",
            "layer": layer, "gnnref_ordered": stats(ordered), "gnnref_dense": stats(dense),
            "dgl_to_block": stats(dgl_t),
            "ratio_dgl_over_ordered": stats([d / o for d, o in zip(dgl_t, ordered)]),
            "ratio_dgl_over_dense": stats([d / o for d, o in zip(dgl_t, dense)]),
            "dgl_src_vertices_out_of_first_appearance_order": order_eq,
            "note": "median of 5 calls per repeat on each side; gnnref: gnn_idmap_build alone "
                    "(the map object created once, as a sampler keeps it); DGL: dgl.to_block alone",
        }

    # -- aggregation -------------------------------------------------------------------------
    def w_aggregate(self, peer):
        a = self.a
        data, prefix, info = self.export_rmat()
        s = a.scale
        flt = f"^aggregate/sampled-mean-s{s}/cpu/threads={a.threads}/"
        env = {"GNN_BENCH_CACHE_DIR": os.path.abspath(self.out), "GNN_BENCH_RMAT_SCALE": str(s)}
        argv = [a.bench, f"--benchmark_filter={flt}", "--benchmark_format=json"]
        self.commands["aggregate"] = " ".join(f"{k}={v}" for k, v in env.items()) + " " + " ".join(argv)
        g_t, ceil_t, of_ceil, dgl_t, sp_t = [], [], [], [], []
        for r in range(a.repeats):
            for side in self.order(r):
                if side == 0:
                    out = self.sh(argv, env=env)
                    b = [x for x in json.loads(out)["benchmarks"] if x.get("run_type", "iteration") == "iteration"][0]
                    if b.get("error_occurred"):
                        raise RuntimeError(f"gnnref-bench: {b.get('error_message')}")
                    unit = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[b["time_unit"]]
                    t = b["real_time"] * unit
                    g_t.append(t)
                    of_ceil.append(b["of_ceiling"])
                    gather_bytes = sum(2.0 * x["nnz"] * 256 * 4 + x["nnz"] * 4.0 for x in info["blocks"])
                    ceil_t.append(gather_bytes / (b["ceiling_GB/s"] * 1e9))
                else:
                    o = peer("aggregate", prefix=prefix, layers=3, d=256, inner=5)
                    dgl_t.append(o["dgl_copy_u_mean"])
                    sp_t.append(o["torch_sparse_mm"])
            log(f"aggregate {r + 1}/{a.repeats}: gnnref {g_t[-1] * 1e3:.1f} ms ({of_ceil[-1]:.2f} of the gather "
                f"ceiling), DGL {dgl_t[-1] * 1e3:.1f} ms, torch.sparse.mm {sp_t[-1] * 1e3:.1f} ms")
        peer("drop", prefix=prefix)
        self.results["aggregate"] = {
            "unit": "seconds per mean aggregation of the three blocks of batch 0 at d = 256 (lower is better)",
            "blocks": info["blocks"],
            "gnnref": stats(g_t), "dgl_copy_u_mean": stats(dgl_t), "torch_sparse_mm": stats(sp_t),
            "gather_ceiling_same_edges": stats(ceil_t),
            "gnnref_of_gather_ceiling": stats(of_ceil),
            "ratio_dgl_over_gnnref": stats([d / g for d, g in zip(dgl_t, g_t)]),
            "ratio_sparse_mm_over_gnnref": stats([d / g for d, g in zip(sp_t, g_t)]),
            "acceptance": {"of_ceiling_min": 0.8},
            "note": "gnnref: gnnref-bench's aggregate/sampled-mean study (bench/bench_aggregate.c), mean "
                    "time per iteration; its row-gather ceiling is measured after every timed call in the "
                    "same process (of_ceiling = GB/s / ceiling GB/s, bytes of the aggregation vs bytes of "
                    "the gather). Peers: mean of 5 calls after one warm-up, per repeat.",
        }

    # -- GraphSAGE epoch -------------------------------------------------------------------------
    def impls_listed(self):
        helptext = self.sh([self.a.gnnref, "train", "--help"])
        return helptext.split("--impl", 1)[-1].split("\n")[0]

    def impl(self):
        """gnnref train's context: --impl / $GNNREF_IMPL, else fma (the default since issue 34) when
        listed, else blas when listed, else opt."""
        if self.a.impl:
            return self.a.impl
        listed = self.impls_listed()
        return "fma" if "fma" in listed else "blas" if "blas" in listed else "opt"

    def second_impl(self):
        """The context timed beside the first in the SAGE workload: blas (OpenBLAS, CPU-dependent
        bits) when listed and not the first; else none."""
        first = self.impl()
        return "blas" if first != "blas" and "blas" in self.impls_listed() else None

    def w_sage(self, peer):
        a = self.a
        n = a.sbm_nodes
        data = self.ensure(os.path.join(self.out, f"sbm-{n}.gnn"),
                           [a.gnnref, "gen", "sbm", "--nodes", str(n), "--split", "0.5,0.2,0.2", "--seed", "1",
                            "--threads", str(a.threads), "-o", os.path.join(self.out, f"sbm-{n}.gnn")])
        impl, impl2 = self.impl(), self.second_impl()
        jpath = os.path.join(self.out, "sage.json")
        g_t, g2_t, p_t, g_phase = [], [], [], []

        def epoch(ctx, key):
            self.gnnref("train", "--data", data, "--model", "sage", "--hidden", "64", "--fanouts", "10,10",
                        "--batch", "256", "--epochs", "1", "--eval-every", "0", "--impl", ctx,
                        "--threads", str(a.threads), "--seed", str(r + 1), "--quiet", "--json", jpath, key=key)
            e = json.load(open(jpath))["epochs"][0]
            return e["time_s"] - e["phases"].get("eval", 0.0), e["phases"]

        for r in range(a.repeats):
            for side in self.order(r):
                if side == 0:
                    # the two contexts back to back, in alternating order as the sides
                    for ctx in ((impl, impl2) if r % 2 == 0 else (impl2, impl)):
                        if ctx is None:
                            continue
                        t, ph = epoch(ctx, "sage" if ctx == impl else "sage_" + ctx)
                        if ctx == impl:
                            g_t.append(t)
                            g_phase.append(ph)
                        else:
                            g2_t.append(t)
                else:
                    p_t.append(peer("sage", data=data, hidden=64, fanouts=[10, 10], batch=256, epochs=1,
                                    seed=r + 1)["epoch_s"][0])
            log(f"sage {r + 1}/{a.repeats}: gnnref ({impl}) {g_t[-1]:.2f} s"
                + (f", gnnref ({impl2}) {g2_t[-1]:.2f} s" if impl2 else "") + f", DGL {p_t[-1]:.2f} s")
        peer("drop", prefix=data)
        self.results["sage"] = {
            "unit": "seconds per training epoch, evaluation excluded (lower is better)",
            "data": data, "impl": impl,
            "gnnref": stats(g_t), "dgl": stats(p_t),
            "ratio_gnnref_over_dgl": stats([g / p for g, p in zip(g_t, p_t)]),
            "gnnref_phases_last": g_phase[-1],
            "acceptance": {"ratio_max": 0.5},
        }
        if impl2:
            # the second context, and the first's time over the second's, per repeat (issue 34: fma
            # within 1.3x of blas)
            self.results["sage"].update({
                "impl2": impl2, "gnnref_impl2": stats(g2_t),
                "ratio_impl2_over_dgl": stats([g / p for g, p in zip(g2_t, p_t)]),
                "ratio_impl_over_impl2": stats([g / h for g, h in zip(g_t, g2_t)]),
                "acceptance_impl_over_impl2_max": 1.3,
            })

    # -- full-batch GCN on CiteSeer ---------------------------------------------------------------
    def w_gcn(self, peer):
        a = self.a
        src = a.citeseer
        if not os.path.isdir(src):
            self.results["gcn"] = {"skipped": f"{src} not found (shared/datasets)"}
            log(f"gcn: SKIP ({src} not found)")
            return
        data = self.ensure(os.path.join(self.out, "citeseer.gnn"),
                           [a.gnnref, "convert", "--format", "text", src, "-o", os.path.join(self.out, "citeseer.gnn")])
        impl = self.impl()
        jpath = os.path.join(self.out, "gcn.json")
        g_t, p_t, g_acc, p_acc = [], [], [], []
        for r in range(a.gcn_seeds):
            for side in self.order(r):
                if side == 0:
                    self.gnnref("train", "--data", data, "--model", "gcn", "--mode", "fullbatch", "--hidden", "16",
                                "--dropout", "0.5", "--lr", "0.01", "--weight-decay", "5e-4",
                                "--epochs", str(a.gcn_epochs), "--eval-every", "0", "--impl", impl,
                                "--threads", str(a.threads), "--seed", str(r + 1), "--quiet", "--json", jpath,
                                key="gcn")
                    j = json.load(open(jpath))
                    g_t.append(statistics.median(e["time_s"] - e["phases"].get("eval", 0.0) for e in j["epochs"]))
                    g_acc.append(j["final"]["test_acc"])
                else:
                    o = peer("gcn", data=data, hidden=16, epochs=a.gcn_epochs, seed=r + 1)
                    p_t.append(o["epoch_s"])
                    p_acc.append(o["test_acc"])
            log(f"gcn seed {r + 1}/{a.gcn_seeds}: gnnref ({impl}) {g_t[-1] * 1e3:.2f} ms/epoch acc {g_acc[-1]:.4f}, "
                f"PyTorch {p_t[-1] * 1e3:.2f} ms/epoch acc {p_acc[-1]:.4f}")
        self.results["gcn"] = {
            "unit": "seconds per training epoch (median over the epochs of a run), evaluation excluded",
            "data": data, "impl": impl, "epochs": a.gcn_epochs, "seeds": list(range(1, a.gcn_seeds + 1)),
            "gnnref": stats(g_t), "pytorch_dense": stats(p_t),
            "ratio_gnnref_over_pytorch": stats([g / p for g, p in zip(g_t, p_t)]),
            "test_acc_gnnref": stats(g_acc), "test_acc_pytorch": stats(p_acc),
            "test_acc_mean_gnnref": statistics.mean(g_acc), "test_acc_mean_pytorch": statistics.mean(p_acc),
            "acceptance": {"ratio_max": 0.5, "acc_diff_max_points": 1.0},
        }

    # -- the table -------------------------------------------------------------------------------
    def table(self):
        R = self.results

        def mr(s, scale=1.0, fmt="{:.2f}"):
            return (fmt.format(s["median"] * scale) + " (" + fmt.format(s["min"] * scale) + "–" +
                    fmt.format(s["max"] * scale) + ")")

        rows = ["| work | gnnref | peer | ratio (median, range) | acceptance |", "| --- | --- | --- | --- | --- |"]
        if "sample" in R:
            s = R["sample"]
            rows.append(f"| sampling, R-MAT scale {self.a.scale}, fanouts 15,10,5, batch 1000, {self.a.batches} batches "
                        f"| {mr(s['gnnref'], 1e-6, '{:.1f}')} M edges/s (fused, ordered) "
                        f"| DGL fused sampler {mr(s['dgl_fused'], 1e-6, '{:.1f}')} "
                        f"| {mr(s['ratio_gnnref_over_dgl'])}x faster | >= 2x |")
            rows.append(f"| sampled edges per random read (ceiling {mr(s['random_reads_per_s'], 1e-6, '{:.0f}')} M reads/s) "
                        f"| {mr(s['edges_per_random_read'])} | | | >= 0.5 |")
        if "idmap" in R:
            s = R["idmap"]
            rows.append(f"| ID map of one input layer ({s['layer']['n_src']} src, {s['layer']['nnz']} edges) "
                        f"| ordered {mr(s['gnnref_ordered'], 1e3)} ms, dense {mr(s['gnnref_dense'], 1e3)} ms "
                        f"| DGL `to_block` {mr(s['dgl_to_block'], 1e3)} ms "
                        f"| {mr(s['ratio_dgl_over_ordered'])}x / {mr(s['ratio_dgl_over_dense'])}x faster | |")
        if "aggregate" in R:
            s = R["aggregate"]
            rows.append(f"| mean aggregation, d = 256, three sampled blocks | {mr(s['gnnref'], 1e3, '{:.1f}')} ms "
                        f"| DGL `copy_u_mean` {mr(s['dgl_copy_u_mean'], 1e3, '{:.1f}')} ms, torch `sparse.mm` "
                        f"{mr(s['torch_sparse_mm'], 1e3, '{:.1f}')} ms "
                        f"| {mr(s['ratio_dgl_over_gnnref'])}x / {mr(s['ratio_sparse_mm_over_gnnref'])}x faster | |")
            rows.append(f"| aggregation of the row-gather ceiling (same run) | {mr(s['gnnref_of_gather_ceiling'])} "
                        f"| | | >= 0.80 |")
        if "sage" in R:
            s = R["sage"]
            rows.append(f"| GraphSAGE epoch, SBM {self.a.sbm_nodes} vertices, hidden 64, fanouts 10,10, batch 256 "
                        f"(`--impl {s['impl']}`) | {mr(s['gnnref'])} s | DGL {mr(s['dgl'])} s "
                        f"| {mr(s['ratio_gnnref_over_dgl'])}x DGL's time | <= 0.5x |")
            if "impl2" in s:
                rows.append(f"| GraphSAGE epoch, the same (`--impl {s['impl2']}`) | {mr(s['gnnref_impl2'])} s "
                            f"| DGL (same run) | {mr(s['ratio_impl2_over_dgl'])}x DGL's time | |")
                rows.append(f"| GraphSAGE epoch, `--impl {s['impl']}` over `--impl {s['impl2']}` (same run) "
                            f"| {mr(s['ratio_impl_over_impl2'])}x | | | <= 1.3x |")
        if "gcn" in R and "skipped" not in R["gcn"]:
            s = R["gcn"]
            rows.append(f"| full-batch GCN epoch, CiteSeer, hidden 16, {s['epochs']} epochs (`--impl {s['impl']}`) "
                        f"| {mr(s['gnnref'], 1e3)} ms | PyTorch dense input {mr(s['pytorch_dense'], 1e3)} ms "
                        f"| {mr(s['ratio_gnnref_over_pytorch'])}x PyTorch's time | <= 0.5x |")
            rows.append(f"| GCN test accuracy, mean over {len(s['seeds'])} seeds | {100 * s['test_acc_mean_gnnref']:.1f}% "
                        f"| {100 * s['test_acc_mean_pytorch']:.1f}% "
                        f"| {100 * (s['test_acc_mean_gnnref'] - s['test_acc_mean_pytorch']):+.1f} points | ±1 point |")
        return "\n".join(rows)


def machine_state():
    try:
        with open("/proc/loadavg") as f:
            load = f.read().split()[:3]
    except OSError:
        load = []
    cpu = ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {"loadavg": load, "cpu": cpu, "cores": os.cpu_count(), "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}


def run_main(a):
    if a.quick:
        a.scale = a.scale or 18
        a.sbm_nodes = a.sbm_nodes or 20000
        a.repeats = a.repeats or 2
        a.gcn_seeds = a.gcn_seeds or 2
        a.gcn_epochs = a.gcn_epochs or 100
    a.scale = a.scale or 22
    a.sbm_nodes = a.sbm_nodes or 200000
    a.repeats = a.repeats or 5
    a.gcn_seeds = a.gcn_seeds or 5
    a.gcn_epochs = a.gcn_epochs or 200
    only = [w.strip() for w in a.only.split(",")] if a.only else list(WORKLOADS)
    for w in only:
        if w not in WORKLOADS:
            log(f"error: unknown workload {w!r} (one of {', '.join(WORKLOADS)})")
            return 2
    d = Driver(a)
    state0 = machine_state()
    peer = Peer(a.threads, a.omp_wait_policy)
    try:
        versions = peer("versions")
        gv = d.gnnref("--version").strip()
        try:
            commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=HERE, capture_output=True,
                                    text=True).stdout.strip()
        except OSError:
            commit = ""
        versions["gnnref"] = gv
        versions["gnnref_commit"] = commit
        log(f"peers: torch {versions['torch']}, dgl {versions['dgl']}; gnnref {gv} ({commit}); "
            f"threads {a.threads}, repeats {a.repeats}; load average {' '.join(state0['loadavg'])}")
        for w in only:
            t0 = time.time()
            getattr(d, "w_" + w)(peer)
            log(f"{w}: done in {time.time() - t0:.0f} s")
    finally:
        peer.close()
    report = {
        "command": "make bench-peers" + (" PEERS_ARGS=--quick" if a.quick else ""),
        "quick": a.quick, "threads": a.threads, "omp_wait_policy": a.omp_wait_policy, "repeats": a.repeats, "scale": a.scale, "sbm_nodes": a.sbm_nodes,
        "versions": versions, "machine_before": state0, "machine_after": machine_state(),
        "commands": d.commands, "results": d.results,
    }
    report["table"] = d.table()
    path = os.path.join(a.out, "report.json")
    with open(path, "w") as f:
        json.dump(report, f, indent=2)
    print()
    print(f"gnnref vs peers: {a.threads} threads, OMP_WAIT_POLICY {a.omp_wait_policy}, {a.repeats} repeats, "
          f"medians (min–max); "
          f"load average before {' '.join(state0['loadavg'])}, after {' '.join(report['machine_after']['loadavg'])}")
    print(f"versions: torch {versions['torch']}, dgl {versions['dgl']}, numpy {versions['numpy']}, "
          f"python {versions['python']}; gnnref {versions['gnnref']} ({versions['gnnref_commit']})")
    print()
    print(report["table"])
    print()
    print(f"report: {path}")
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    w = sub.add_parser("worker")
    w.add_argument("--threads", type=int, default=2)
    r = sub.add_parser("run")
    r.add_argument("--gnnref", default="build/bin/gnnref")
    r.add_argument("--bench", default="build/bin/gnnref-bench")
    r.add_argument("--tool", default="build/peers/peers_tool")
    r.add_argument("--randread", default="build/peers/randread")
    r.add_argument("--out", default="build/peers")
    r.add_argument("--citeseer", default="../shared/datasets/citeseer")
    r.add_argument("--threads", type=int, default=2)
    r.add_argument("--repeats", type=int, default=0, help="default 5 (2 with --quick)")
    r.add_argument("--scale", type=int, default=0, help="R-MAT scale (default 22, 18 with --quick)")
    r.add_argument("--batches", type=int, default=20, help="sampling: batches of 1000 seeds per run")
    r.add_argument("--sbm-nodes", type=int, default=0, help="SAGE graph (default 200000, 20000 with --quick)")
    r.add_argument("--gcn-seeds", type=int, default=0, help="default 5 (2 with --quick)")
    r.add_argument("--gcn-epochs", type=int, default=0, help="default 200 (100 with --quick)")
    r.add_argument("--impl", default=os.environ.get("GNNREF_IMPL", ""),
                   help="gnnref train's --impl (default $GNNREF_IMPL, else fma when listed, else blas when "
                        "listed, else opt); the SAGE workload also times blas beside it")
    r.add_argument("--omp-wait-policy", choices=("passive", "active", "default"), default="passive",
                   help="OMP_WAIT_POLICY of both sides (default passive, gnnref's own default; "
                        "'default': the peers' libgomp default, spinning)")
    r.add_argument("--only", default="", help="comma-separated subset of " + ",".join(WORKLOADS))
    r.add_argument("--quick", action="store_true", help="fewer repeats, smaller graphs")
    a = p.parse_args()
    if a.cmd == "worker":
        return worker_main(a.threads)
    return run_main(a)


if __name__ == "__main__":
    sys.exit(main())
