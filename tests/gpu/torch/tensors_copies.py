"""Tensor creation on the device and copies both ways: pageable, pinned, non-blocking, device to device."""
import torch
from suite import Suite, say

s = Suite("tensors_copies")
dev = torch.device("cuda")
s.record("zeros_ones_arange", torch.cat([torch.zeros(5, device=dev), torch.ones(5, device=dev),
                                        torch.arange(10, device=dev, dtype=torch.float32)]))
s.record("full_int", torch.full((3, 4), 7, device=dev, dtype=torch.int32))
gen = torch.Generator(device=dev).manual_seed(1234)
s.record("randn_device_generator", torch.randn(1000, device=dev, generator=gen), rtol=0, atol=0)

host = torch.randn(1 << 20)
d = host.to(dev)
back = d.cpu()
s.check("pageable round trip exact", torch.equal(host, back))
pinned = torch.randn(1 << 22).pin_memory()
d2 = pinned.to(dev, non_blocking=True)
out = torch.empty_like(pinned).pin_memory()
out.copy_(d2 * 2, non_blocking=True)
torch.cuda.synchronize()
s.check("pinned non-blocking round trip", torch.equal(out, pinned * 2))
d3 = d2.clone()
d3.add_(1)
s.check("device to device copy", torch.equal(d3.cpu(), pinned + 1))
big = torch.arange(64 << 20, dtype=torch.int32)
s.check("256 MB round trip", torch.equal(big.cuda().cpu(), big))
half = d[:1000].half()
s.record("dtype_conversion_half", half)
say("shapes:", tuple(d.shape), tuple(d2.shape), half.dtype)
s.finish()
