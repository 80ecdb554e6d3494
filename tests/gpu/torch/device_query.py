"""Device query: what torch sees of the (remote) GPU."""
import torch
from suite import Suite, say

s = Suite("device_query")
s.check("cuda available", torch.cuda.is_available())
say("device count:", torch.cuda.device_count())
say("current device:", torch.cuda.current_device())
props = torch.cuda.get_device_properties(0)
say("name:", torch.cuda.get_device_name(0))
say("capability:", torch.cuda.get_device_capability(0))
say("multiprocessors:", props.multi_processor_count)
say("total memory GiB:", props.total_memory // (1 << 30))
s.check("cudnn available", torch.backends.cudnn.is_available())
say("cudnn version:", torch.backends.cudnn.version())
s.check("bf16 supported", torch.cuda.is_bf16_supported())
free, total = torch.cuda.mem_get_info()
s.check("mem_get_info: 0 < free <= total", 0 < free <= total)
s.finish()
