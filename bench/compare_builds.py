#!/usr/bin/env python3
"""compare_builds.py: two builds of wick side by side on one GPU, for a change that must not move performance
(a refactor): bench/torch_compare.py runs each build's libwick.so in turn, ROUNDS times, alternating, and the
table gives each case's wick time in both (the median over rounds), new/old, and the PyTorch ratio of each.

Run on the GPU machine:
  python3 bench/compare_builds.py --old .base/build-gpu/libwick.so --new build-gpu/libwick.so [--rounds 2]
      [--op softmax,layer_norm] [--out DIR]
Exit status 1 when a torch_compare run failed or a result did not match PyTorch's.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def run(lib, out_json, op, python):
    cmd = [python, os.path.join(HERE, "torch_compare.py"), "--lib", lib, "--json", out_json]
    if op:
        cmd += ["--op", op]
    print("$", " ".join(cmd), flush=True)
    rc = subprocess.call(cmd, stdout=subprocess.DEVNULL)
    with open(out_json) as f:
        return rc, json.load(f)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--old", required=True, help="the baseline build's libwick.so")
    ap.add_argument("--new", required=True, help="the changed build's libwick.so")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--op", help="torch_compare.py's --op")
    ap.add_argument("--out", default=os.environ.get("OUT", "."), help="where the JSON of each run goes")
    args = ap.parse_args()
    times = {"old": {}, "new": {}}
    ratios = {"old": {}, "new": {}}
    bad = 0
    for r in range(args.rounds):
        for side in ("old", "new"):
            rc, res = run(getattr(args, side), os.path.join(args.out, "ab-%s-%d.json" % (side, r)), args.op,
                          sys.executable)
            bad += rc != 0
            for c in res["cases"]:
                key = "%s %s" % (c["case"], c["shape"])
                ms = c.get("wick_ms") if "wick_ms" in c else c.get("wick_us")
                if ms:
                    times[side].setdefault(key, []).append(ms)
                if c.get("ratio"):
                    ratios[side].setdefault(key, []).append(c["ratio"])
    print("%-60s %10s %10s %8s %9s %9s" % ("case", "old", "new", "new/old", "torch/old", "torch/new"))
    for key in times["old"]:
        if key not in times["new"]:
            continue
        o, n = statistics.median(times["old"][key]), statistics.median(times["new"][key])
        ro = statistics.median(ratios["old"].get(key, [0])) or 0
        rn = statistics.median(ratios["new"].get(key, [0])) or 0
        print("%-60s %10.4f %10.4f %8.3f %9.2f %9.2f" % (key[:60], o, n, n / o, ro, rn))
    print("%d of %d torch_compare runs failed or mismatched" % (bad, 2 * args.rounds))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
