"""ResNet-18 training (the ImageNet layout: 224x224 input, 1000 classes), batch 64, fp32 tensors (cuDNN
convolutions with torch's default TF32 setting), SGD with momentum.

Defined here (torchvision is not a dependency). Bar: step time <= 1.10 x native."""
import torch
import torch.nn as nn
from suite import Suite, say


class Block(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.down = None
        if stride != 1 or cin != cout:
            self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        y = torch.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return torch.relu(y + (x if self.down is None else self.down(x)))


class ResNet18(nn.Module):
    def __init__(self, classes=1000):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(),
                                  nn.MaxPool2d(3, 2, 1))
        layers, cin = [], 64
        for cout, stride in [(64, 1), (128, 2), (256, 2), (512, 2)]:
            layers += [Block(cin, cout, stride), Block(cout, cout, 1)]
            cin = cout
        self.layers = nn.Sequential(*layers)
        self.head = nn.Linear(512, classes)

    def forward(self, x):
        x = self.layers(self.stem(x))
        return self.head(torch.flatten(nn.functional.adaptive_avg_pool2d(x, 1), 1))


s = Suite("resnet18_train")
model = ResNet18().cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
x = torch.randn(64, 3, 224, 224).cuda()
labels = torch.randint(0, 1000, (64,)).cuda()
losses = []


def step():
    opt.zero_grad(set_to_none=True)
    loss = nn.functional.cross_entropy(model(x), labels)
    loss.backward()
    opt.step()
    return loss


for _ in range(10):
    losses.append(step().item())
s.check("loss decreases over 10 steps", losses[-1] < losses[0])
s.record("losses", torch.tensor(losses), rtol=2e-2, atol=2e-2)
s.time_steps("ResNet-18 training step, batch 64, fp32", step, warmup=3, iters=30, bar=1.10)
say("parameters:", sum(p.numel() for p in model.parameters()))
s.finish()
