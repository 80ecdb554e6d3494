"""Judges a PyTorch suite script's remote results against its native ones.

Usage: compare.py NATIVE.pt REMOTE.pt STEPS.tsv
Prints one line per result (max difference against the tolerance it was recorded with) and, last,
PASS or FAIL: why. Appends one row per timed workload to STEPS.tsv: workload, native ms/step, remote
ms/step, ratio, bar, remote round trips per step, remote calls per step, bar met (yes/no/-).
"""
import math
import sys

import torch


def differs(name, native, remote):
    rtol, atol = native["rtol"], native["atol"]
    a, b = native["value"], remote["value"]
    if isinstance(a, torch.Tensor):
        if not isinstance(b, torch.Tensor) or a.shape != b.shape:
            return f"{name}: shape {tuple(a.shape)} native, {getattr(b, 'shape', type(b).__name__)} remote"
        diff = (a.double() - b.double()).abs().max().item() if a.numel() else 0.0
        ok = torch.allclose(b.double(), a.double(), rtol=rtol, atol=atol, equal_nan=True)
    else:
        diff = abs(float(a) - float(b))
        ok = math.isclose(float(b), float(a), rel_tol=rtol, abs_tol=atol)
    print(f"  {name}: max |remote - native| = {diff:.3g} (rtol {rtol:g}, atol {atol:g}): {'ok' if ok else 'DIFFERS'}")
    return None if ok else f"{name} differs from native beyond its tolerance"


def main():
    native = torch.load(sys.argv[1], weights_only=True)
    remote = torch.load(sys.argv[2], weights_only=True)
    problems = []
    for name, entry in native["results"].items():
        if name not in remote["results"]:
            problems.append(f"{name} missing from the remote results")
            continue
        problem = differs(name, entry, remote["results"][name])
        if problem:
            problems.append(problem)
    with open(sys.argv[3], "a") as steps:
        for workload, n in native["timings"].items():
            r = remote["timings"].get(workload)
            if not r:
                problems.append(f"{workload}: no remote timing")
                continue
            ratio = r["ms_per_step"] / n["ms_per_step"]
            met = "-" if n["bar"] is None else ("yes" if ratio <= n["bar"] else "no")
            rt = r.get("round_trips_per_step")
            calls = r.get("calls_per_step")
            steps.write(f"{workload}\t{n['ms_per_step']:.3f}\t{r['ms_per_step']:.3f}\t{ratio:.3f}\t"
                        f"{n['bar'] if n['bar'] is not None else '-'}\t"
                        f"{'-' if rt is None else f'{rt:.2f}'}\t{'-' if calls is None else f'{calls:.1f}'}\t{met}\n")
    print("PASS" if not problems else "FAIL: " + "; ".join(problems))


main()
