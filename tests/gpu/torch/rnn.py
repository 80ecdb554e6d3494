"""nn.LSTM (2 layers, dropout 0.2: cuDNN's dropout states) and nn.GRU (bidirectional) training steps
through cuDNN's RNN API: the first forward against the same network in float64 on the CPU, losses
and gradients recorded for compare.py, step times for the table (no bar yet: each step waits for
cuDNN's workspace-size queries, see client/cudnn/README.md)."""
import copy

import torch
import torch.nn as nn
from suite import Suite, say

SEQ, BATCH, IN, HID = 50, 32, 64, 128

s = Suite("rnn")
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
s.check("cuDNN is enabled", torch.backends.cudnn.is_available() and torch.backends.cudnn.enabled)


def run(kind, layers, dropout, bidirectional):
    rnn = getattr(nn, kind)(IN, HID, num_layers=layers, dropout=dropout, bidirectional=bidirectional,
                            batch_first=True)
    head = nn.Linear(HID * (2 if bidirectional else 1), 1)
    x, target = torch.randn(BATCH, SEQ, IN), torch.randn(BATCH, 1)

    # The first forward, without dropout (eval), against float64 on the CPU.
    ref = copy.deepcopy(rnn).double().eval()
    want, _ = ref(x.double())
    rnn, head, xc, tc = rnn.cuda(), head.cuda(), x.cuda(), target.cuda()
    rnn.eval()
    with torch.no_grad():
        got, _ = rnn(xc)
    err = (got.double().cpu() - want).abs().max().item()
    s.check(f"{kind} forward within 1e-4 of float64", err < 1e-4)
    rnn.train()

    params = list(rnn.parameters()) + list(head.parameters())
    opt = torch.optim.SGD(params, lr=0.05)

    def step():
        opt.zero_grad(set_to_none=True)
        out, _ = rnn(xc)
        loss = nn.functional.mse_loss(head(out[:, -1]), tc)
        loss.backward()
        opt.step()
        return loss

    losses = [step().item() for _ in range(5)]
    grad = torch.cat([p.grad.flatten() for p in rnn.parameters()])
    s.check(f"{kind} loss decreases over 5 steps", losses[-1] < losses[0])
    s.record(f"{kind} losses", torch.tensor(losses), rtol=1e-4, atol=1e-6)
    s.record(f"{kind} gradient", grad, rtol=1e-3, atol=1e-6)
    say(f"{kind} loss after 5 steps: {losses[-1]:.3g}, gradient L1 norm: {grad.abs().sum().item():.3g}")
    direction = "bidirectional " if bidirectional else ""
    s.time_steps(f"{kind} ({layers} layers, {direction}hidden {HID}, seq {SEQ}, batch {BATCH}) training step, SGD",
                 step, warmup=5, iters=50)


run("LSTM", 2, 0.2, False)
run("GRU", 1, 0.0, True)
s.finish()
