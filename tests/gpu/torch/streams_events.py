"""Two streams and events: work on a side stream ordered after the default stream with wait_event, event
timing, and record_stream for memory used across streams."""
import torch
from suite import Suite, say

s = Suite("streams_events")
main = torch.cuda.current_stream()
side = torch.cuda.Stream()
a = torch.randn(2048, 2048, device="cuda")
ready = torch.cuda.Event()
start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
b = a * 2
ready.record(main)
with torch.cuda.stream(side):
    side.wait_event(ready)
    start.record()
    c = b @ b
    d = c.sum(dim=0)
    end.record()
    d.record_stream(side)
main.wait_stream(side)
total = d.sum()
end.synchronize()
s.check("elapsed time positive", start.elapsed_time(end) > 0)
s.check("event query after synchronize", end.query())
ref = ((a.double() * 2) @ (a.double() * 2)).sum()
s.check("side-stream result within 1e-4 of float64", abs(total.item() - ref.item()) / abs(ref.item()) < 1e-4)
s.record("column_sums", d, rtol=1e-4, atol=1e-2)
s.check("streams differ", side.cuda_stream != main.cuda_stream)
say("side stream query after sync:", side.query())
s.finish()
