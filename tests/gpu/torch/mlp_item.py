"""Inference through a 20-layer MLP (width 64) with .item() every iteration: one host synchronisation
per iteration, so every call the libraries add on top shows. Bar: iteration time <= 1.3 x native."""
import torch
import torch.nn as nn
from suite import Suite, say

s = Suite("mlp_item")
layers = []
for _ in range(20):
    layers += [nn.Linear(64, 64), nn.ReLU()]
model = nn.Sequential(*layers).cuda().eval()
x = torch.randn(32, 64).cuda()
values = []


@torch.no_grad()
def step():
    values.append(model(x).sum().item())


step()
s.record("first_value", values[0], rtol=1e-5, atol=1e-5)
s.time_steps("20-layer MLP (width 64) inference with .item() each iteration", step, warmup=20, iters=500,
             bar=1.3)
s.check("every iteration gives the same value", len(set(values)) == 1)
s.finish()
