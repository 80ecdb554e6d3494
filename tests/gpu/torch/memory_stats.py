"""torch.cuda.memory_allocated / max_memory_allocated / reset_peak_memory_stats / empty_cache."""
import torch
from suite import Suite, say

s = Suite("memory_stats")
torch.cuda.init()
base = torch.cuda.memory_allocated()
say("allocated at start:", base)
x = torch.empty(64 << 20, dtype=torch.uint8, device="cuda")
say("allocated after 64 MiB:", torch.cuda.memory_allocated() - base)
y = torch.empty(32 << 20, dtype=torch.uint8, device="cuda")
peak = torch.cuda.max_memory_allocated()
say("peak after 96 MiB:", peak - base)
del x, y
say("allocated after free:", torch.cuda.memory_allocated() - base)
s.check("reserved >= 96 MiB while cached", torch.cuda.memory_reserved() >= 96 << 20)
torch.cuda.empty_cache()
s.check("reserved back to 0 after empty_cache", torch.cuda.memory_reserved() == 0)
torch.cuda.reset_peak_memory_stats()
z = torch.ones(1 << 20, device="cuda")
say("peak after reset and 4 MiB:", torch.cuda.max_memory_allocated() - base)
s.check("sum of ones", z.sum().item() == float(1 << 20))
s.finish()
