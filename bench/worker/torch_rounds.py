"""The PyTorch rounds of `rgpu bench pool --overhead`: one script run many times, each run a child
forked from this one process, which imported torch once.

Why forked children: a host-bound step (the 20-layer MLP with .item(), the transformer) moves by up
to 1.6 x from one python process to the next on the H200's VM, natively as through rgpu, while the
blocks of one process agree within a few per cent; children of one parent that imported torch
share its memory layout and spread far less (docs/pool-results.md, "The MLP's spread, probed").
The bench needs to tell 2 % apart.

    rgpu run -- python3 torch_rounds.py SCRIPT SIDE [SIDE ...]

Each SIDE is a name (whole, sliced) whose server and token the environment gives as
RGPU_ROUNDS_<SIDE>_SERVER and RGPU_ROUNDS_<SIDE>_TOKEN (absent: no token). Each child takes them
as RGPU_SERVER and RGPU_TOKEN before its first CUDA call, so it opens a session of its own with
that side's rgpud. Before each child this prints "rgpu-round N: SIDE" on stderr; the child's own
lines ("WORKLOAD: 0.612 ms/step") follow. A child that fails ends the rounds with its status.
"""
import os
import runpy
import sys
import time

import torch

# A session opened here would be shared by every child: the rounds would be one client's.
if torch.cuda.is_initialized():
    sys.exit("torch_rounds.py: CUDA was initialised before the first fork")

script, sides = sys.argv[1], sys.argv[2:]
if not sides:
    sys.exit("usage: torch_rounds.py SCRIPT SIDE [SIDE ...]")
sys.path.insert(0, os.path.dirname(os.path.abspath(script)))  # the suite's scripts import suite.py

for number, side in enumerate(sides, 1):
    server = os.environ.get(f"RGPU_ROUNDS_{side}_SERVER")
    if not server:
        sys.exit(f"torch_rounds.py: no RGPU_ROUNDS_{side}_SERVER for side {side}")
    print(f"rgpu-round {number}: {side}", file=sys.stderr, flush=True)
    pid = os.fork()
    if pid == 0:
        os.environ["RGPU_SERVER"] = server
        os.environ.pop("RGPU_TOKEN", None)
        if f"RGPU_ROUNDS_{side}_TOKEN" in os.environ:
            os.environ["RGPU_TOKEN"] = os.environ[f"RGPU_ROUNDS_{side}_TOKEN"]
        sys.argv = [script]
        runpy.run_path(script, run_name="__main__")  # the suite's scripts end in sys.exit
        sys.exit(0)
    _, status = os.waitpid(pid, 0)
    if status != 0:
        sys.exit(f"torch_rounds.py: round {number} ({side}) of {script} failed (wait status {status})")
    # The session's worker tears its CUDA context down after the child exits; the next round waits
    # for that rather than share the GPU with it.
    time.sleep(1)
