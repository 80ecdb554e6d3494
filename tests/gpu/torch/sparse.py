"""Sparse matrix products through cuSPARSE: COO times dense (torch.sparse.mm), CSR times dense and
times a vector, CSR times CSR (SpGEMM), in float32 and float64, each against a dense float64
product on the CPU; and a timed step (a CSR matrix of 1 % density times a dense block).
Bar: step time <= 1.1 x native."""
import torch
from suite import Suite, say

s = Suite("sparse")


def random_sparse(rows, cols, density, dtype):
    """A dense matrix with about `density` of its entries non-zero (small integers over 4, so each
    product is exact in float32 as in float64 and natively equals remotely bit for bit)."""
    values = torch.randint(-8, 9, (rows, cols)).to(dtype) / 4
    keep = torch.rand(rows, cols) < density
    return values * keep


def close(label, got, ref, tol):
    err = (got.to_dense().cpu().double() - ref).abs().max().item()
    s.check(f"{label} within {tol:g} of float64", err <= tol * max(1.0, ref.abs().max().item()))
    s.record(label, got.to_dense(), rtol=tol, atol=tol)


for dtype, tol in ((torch.float32, 1e-6), (torch.float64, 1e-12)):
    name = str(dtype).removeprefix("torch.")
    a = random_sparse(300, 200, 0.05, dtype)
    b = random_sparse(200, 150, 0.05, dtype)
    dense = torch.randint(-8, 9, (200, 64)).to(dtype) / 4
    vector = torch.randint(-8, 9, (200,)).to(dtype) / 4
    ref_ad = a.double() @ dense.double()

    coo = a.to_sparse().cuda()
    close(f"coo_mm_{name}", torch.sparse.mm(coo, dense.cuda()), ref_ad, tol)
    csr = a.to_sparse_csr().cuda()
    close(f"csr_mm_{name}", csr @ dense.cuda(), ref_ad, tol)
    close(f"csr_mv_{name}", csr @ vector.cuda(), a.double() @ vector.double(), tol)
    product = csr @ b.to_sparse_csr().cuda()
    close(f"csr_csr_{name}", product, a.double() @ b.double(), tol)
    s.check(f"csr_csr_{name} stays sparse CSR", product.layout == torch.sparse_csr)
    say(f"{name}: nnz of A {coo._nnz()}, of A @ B {product._nnz()}")

big = random_sparse(4096, 4096, 0.01, torch.float32).to_sparse_csr().cuda()
block = torch.randn(4096, 128, device="cuda")


def step():
    big @ block


s.time_steps("CSR (4096 x 4096, 1 % dense) times a dense 4096 x 128 block", step, warmup=20,
             iters=500, bar=1.1)
s.finish()
