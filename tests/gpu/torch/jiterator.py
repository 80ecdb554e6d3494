"""A kernel PyTorch compiles at run time with NVRTC (torch.cuda.jiterator) and launches through the
driver API (cuModuleLoadData, cuModuleGetFunction, cuLaunchKernel: remotely rgpu's libcuda.so.1)."""
import torch
from suite import Suite, say

s = Suite("jiterator")
code = "template <typename T> T fused_axpb(T x, T y, T a) { return a * x + y * y; }"
fused = torch.cuda.jiterator._create_jit_fn(code, a=1.0)
x = torch.arange(4096, dtype=torch.float32, device="cuda") / 64
y = torch.linspace(-2, 2, 4096, device="cuda")
out = fused(x, y, a=3.0)
ref = 3.0 * x.cpu() + y.cpu() * y.cpu()
s.check("NVRTC-compiled kernel within 1e-6 of the CPU", torch.allclose(out.cpu(), ref, rtol=1e-6, atol=1e-6))
s.record("fused_axpb", out, rtol=0, atol=0)
half = fused(x.half(), y.half(), a=0.5)
s.check("a second instantiation (half) runs", half.dtype == torch.float16 and bool(torch.isfinite(half).all()))
s.record("fused_axpb_half", half, rtol=0, atol=0)
say("output shape:", tuple(out.shape))
s.finish()
