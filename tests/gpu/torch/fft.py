"""torch.fft through cuFFT: fft, ifft, rfft, irfft, fft2 and rfftn in float32 and complex64, each
against float64 on the CPU, and a timed step (a batch of spectral filters: rfft, a product,
irfft). Bar: step time <= 1.1 x native."""
import torch
from suite import Suite, say

s = Suite("fft")
x = torch.randn(16, 1000, dtype=torch.float64)
z = torch.randn(8, 48, 40, dtype=torch.complex128)


def close(label, got, ref, tol):
    err = (got.cpu().to(ref.dtype) - ref).abs().max().item() / ref.abs().max().item()
    s.check(f"{label} within {tol:g} of float64", err < tol)
    # Complex results are saved as (real, imaginary) pairs: Suite.record keeps floats.
    saved = torch.view_as_real(got) if got.is_complex() else got
    s.record(label, saved, rtol=tol, atol=tol * ref.abs().max().item())


xc = x.float().cuda()
zc = z.to(torch.complex64).cuda()
close("fft", torch.fft.fft(xc), torch.fft.fft(x), 1e-5)
close("ifft", torch.fft.ifft(zc, dim=-1), torch.fft.ifft(z, dim=-1), 1e-5)
close("rfft", torch.fft.rfft(xc), torch.fft.rfft(x), 1e-5)
close("irfft", torch.fft.irfft(torch.fft.rfft(xc), n=1000), x, 1e-5)
close("fft2", torch.fft.fft2(zc), torch.fft.fft2(z), 1e-5)
close("rfftn", torch.fft.rfftn(xc.view(16, 40, 25)), torch.fft.rfftn(x.view(16, 40, 25)), 1e-5)
close("fft_double", torch.fft.fft(x.cuda()), torch.fft.fft(x), 1e-12)
say("spectrum dtype and shape:", torch.fft.rfft(xc).dtype, tuple(torch.fft.rfft(xc).shape))

signal = torch.randn(64, 4096, device="cuda")
response = torch.fft.rfft(torch.randn(4096, device="cuda"))


def step():
    torch.fft.irfft(torch.fft.rfft(signal) * response, n=4096)


s.time_steps("spectral filter: rfft, product, irfft of 64 x 4096", step, warmup=20, iters=500, bar=1.1)
s.finish()
