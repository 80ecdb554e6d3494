"""fp32, tf32 and bf16 matrix products (cuBLAS and cuBLASLt), plus a Linear layer with bias (cuBLASLt's
bias epilogue), each against a float64 product on the CPU."""
import torch
from suite import Suite, say

s = Suite("matmul")
a = torch.randn(512, 384, dtype=torch.float64)
b = torch.randn(384, 256, dtype=torch.float64)
ref = a @ b
scale = ref.abs().max().item()


def check(label, result, tol):
    err = (result.double().cpu() - ref).abs().max().item() / scale
    s.check(f"{label} within {tol:g} of float64", err < tol)
    s.record(label, result, rtol=tol, atol=tol * scale)


torch.backends.cuda.matmul.allow_tf32 = False
check("fp32", a.float().cuda() @ b.float().cuda(), 1e-5)
torch.backends.cuda.matmul.allow_tf32 = True
check("tf32", a.float().cuda() @ b.float().cuda(), 5e-3)
torch.backends.cuda.matmul.allow_tf32 = False
check("bf16", a.bfloat16().cuda() @ b.bfloat16().cuda(), 3e-2)
batched = torch.bmm(a.float().cuda().expand(4, -1, -1), b.float().cuda().expand(4, -1, -1))
check("bmm_fp32", batched[2], 1e-5)

lin = torch.nn.Linear(384, 256).double()
x = a
lin_ref = lin(x).detach()
lin = lin.float().cuda()
y = lin(x.float().cuda())
err = (y.double().cpu() - lin_ref).abs().max().item() / lin_ref.abs().max().item()
s.check("linear with bias within 1e-5", err < 1e-5)
s.record("linear", y, rtol=1e-5, atol=1e-5)
say("result dtypes:", y.dtype, batched.dtype)
s.finish()
