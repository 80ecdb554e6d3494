"""conv2d forward and backward through cuDNN, against float64 on the CPU."""
import torch
import torch.nn.functional as F
from suite import Suite, say

s = Suite("conv2d")
x = torch.randn(8, 16, 32, 32, dtype=torch.float64, requires_grad=True)
w = torch.randn(32, 16, 3, 3, dtype=torch.float64, requires_grad=True)
y = F.conv2d(x, w, padding=1, stride=1)
g = torch.randn_like(y)
y.backward(g)

torch.backends.cudnn.allow_tf32 = False
xc = x.detach().float().cuda().requires_grad_()
wc = w.detach().float().cuda().requires_grad_()
yc = F.conv2d(xc, wc, padding=1, stride=1)
yc.backward(g.float().cuda())


def close(label, got, ref, tol):
    err = (got.double().cpu() - ref).abs().max().item() / ref.abs().max().item()
    s.check(f"{label} within {tol:g} of float64", err < tol)
    s.record(label, got, rtol=tol, atol=tol * ref.abs().max().item())


close("forward", yc, y.detach(), 1e-5)
close("grad_input", xc.grad, x.grad, 1e-5)
close("grad_weight", wc.grad, w.grad, 1e-5)
say("output shape:", tuple(yc.shape))
s.finish()
