"""Shared helpers of the PyTorch suite (tests/gpu/torch): results, step timing, round-trip counts.

Each script runs twice, natively and through rgpu with the GPU hidden (tests/gpu/run.sh). It prints
only lines that are the same in both runs (shapes, dtypes, yes/no checks) and saves its numeric
results and step timings to $RGPU_SUITE_RESULTS; compare.py then judges remote against native within
the tolerance each result was recorded with, and prints the step-time table.
"""
import ctypes
import os
import sys
import time

import torch


def say(*args):
    print(*args, flush=True)


def _rgpu_stats():
    """The rgpu client's counters (calls sent without waiting, round trips), or None natively."""
    try:
        lib = ctypes.CDLL("libcudart.so.13", mode=os.RTLD_NOLOAD | os.RTLD_LAZY)
        fn = lib.rgpu_client_stats
    except (OSError, AttributeError):
        return None
    sent, waited = ctypes.c_uint64(), ctypes.c_uint64()
    fn(ctypes.byref(sent), ctypes.byref(waited))
    return sent.value, waited.value


class Suite:
    def __init__(self, name):
        self.name = name
        self.results = {}
        self.timings = {}
        self.failures = 0
        torch.manual_seed(0)

    def check(self, what, ok):
        say(f"{what}: {'yes' if ok else 'no'}")
        if not ok:
            self.failures += 1

    def record(self, key, value, rtol=1e-5, atol=1e-6):
        """A result compared with native's: a tensor (moved to the CPU) or a number."""
        if isinstance(value, torch.Tensor):
            value = value.detach().float().cpu()
        self.results[key] = {"value": value, "rtol": rtol, "atol": atol}

    def time_steps(self, workload, step, warmup, iters, bar=None):
        """Runs step() warmup times, then iters timed times; records ms per step and round trips per step.
        RGPU_SUITE_ITERS_SCALE=N times N as many steps (a longer average, for overhead measurements)."""
        iters *= max(1, int(os.environ.get("RGPU_SUITE_ITERS_SCALE", "1")))
        for _ in range(warmup):
            step()
        torch.cuda.synchronize()
        before = _rgpu_stats()
        start = time.perf_counter()
        for _ in range(iters):
            step()
        torch.cuda.synchronize()
        ms = (time.perf_counter() - start) * 1e3 / iters
        after = _rgpu_stats()
        entry = {"ms_per_step": ms, "iters": iters, "bar": bar}
        if before and after:
            entry["round_trips_per_step"] = (after[1] - before[1]) / iters
            entry["calls_per_step"] = (after[0] - before[0] + after[1] - before[1]) / iters
        self.timings[workload] = entry
        print(f"{workload}: {ms:.3f} ms/step", file=sys.stderr, flush=True)

    def finish(self):
        path = os.environ.get("RGPU_SUITE_RESULTS")
        if path:
            torch.save({"results": self.results, "timings": self.timings}, path)
        say(f"{self.name}: {'PASS' if self.failures == 0 else 'FAIL'}")
        sys.exit(0 if self.failures == 0 else 1)
