"""scaled_dot_product_attention, forward and backward, with each backend torch offers (flash,
memory-efficient, cuDNN: the backend graph API with a by-value scale, math), in fp16, causal, against
the math backend in float32; outputs and gradients recorded for compare.py. A backend torch cannot
use here says so (the same line natively and remotely)."""
import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
from suite import Suite, say

B, H, L, D = 4, 8, 256, 64

s = Suite("sdpa")
q, k, v = (torch.randn(B, H, L, D, device="cuda") for _ in range(3))
g = torch.randn(B, H, L, D, device="cuda")


def attention(dtype, backend):
    # detach(): a copy of its own for each run (to() of the same dtype would hand back q itself, which
    # then requires grad, and the next run's to() would make no leaf).
    leaves = [t.detach().to(dtype).requires_grad_() for t in (q, k, v)]
    with sdpa_kernel([backend]):
        out = F.scaled_dot_product_attention(*leaves, is_causal=True)
    out.backward(g.to(dtype))
    return out.float(), [t.grad.float() for t in leaves]


ref_out, ref_grads = attention(torch.float32, SDPBackend.MATH)
for backend in (SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION, SDPBackend.CUDNN_ATTENTION,
                SDPBackend.MATH):
    name = backend.name.lower()
    try:
        out, grads = attention(torch.float16, backend)
    except RuntimeError as e:
        say(f"{name}: not available ({str(e).splitlines()[0][:60]})")
        continue
    err = (out - ref_out).abs().max().item()
    gerr = max((a - b).abs().max().item() / b.abs().max().item() for a, b in zip(grads, ref_grads))
    s.check(f"{name}: output within 1e-2 of float32 math", err < 1e-2)
    s.check(f"{name}: gradients within 2e-2 of float32 math", gerr < 2e-2)
    s.record(f"{name} output", out, rtol=1e-2, atol=1e-3)
    s.record(f"{name} grad_q", grads[0], rtol=2e-2, atol=2e-3)
s.finish()
