"""A 4-layer transformer encoder (d=256, 8 heads, batch 32, sequence 128) trained with AdamW under bf16
autocast. Bar: step time <= 1.15 x native."""
import torch
import torch.nn as nn
from suite import Suite, say

VOCAB, D, SEQ, BATCH = 1000, 256, 128, 32


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, D)
        self.pos = nn.Parameter(torch.randn(SEQ, D) * 0.02)
        layer = nn.TransformerEncoderLayer(D, 8, 4 * D, dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 4, enable_nested_tensor=False)
        self.head = nn.Linear(D, VOCAB)

    def forward(self, tokens):
        return self.head(self.encoder(self.embed(tokens) + self.pos))


s = Suite("transformer_train")
model = Model().cuda()
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
tokens = torch.randint(0, VOCAB, (BATCH, SEQ)).cuda()
targets = torch.roll(tokens, 1, dims=1)


def step():
    opt.zero_grad(set_to_none=True)
    with torch.autocast("cuda", dtype=torch.bfloat16):
        logits = model(tokens)
    loss = nn.functional.cross_entropy(logits.float().view(-1, VOCAB), targets.view(-1))
    loss.backward()
    opt.step()
    return loss


losses = [step().item() for _ in range(10)]
s.check("loss decreases over 10 steps", losses[-1] < losses[0])
s.record("losses", torch.tensor(losses), rtol=3e-2, atol=3e-2)
s.time_steps("4-layer transformer (d=256, batch 32, seq 128) training step, AdamW, bf16 autocast", step,
             warmup=10, iters=200, bar=1.15)
say("parameters:", sum(p.numel() for p in model.parameters()))
s.finish()
