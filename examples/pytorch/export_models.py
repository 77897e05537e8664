"""Defines two small PyTorch models and exports them as TorchScript files Keel trains.

    python export_models.py --out models

writes, for each width a search may pick, a residual CNN for grey images (models/cnn-w8.pt,
models/cnn-w16.pt; 1 x 28 x 28 Fashion-MNIST images, 10 classes), the same CNN for colour images
(models/rgb-cnn-w8.pt, models/rgb-cnn-w16.pt; 3 channels of any size, e.g. the 32 x 32 images
`keel data tinted-fashion` writes) and an MLP for tabular rows (models/mlp-h32.pt,
models/mlp-h64.pt; 49 features, 10 classes). A pipeline names them with a placeholder,
model: {torchscript: examples/pytorch/models/cnn-w{width}.pt}, and searches over width.

Keel feeds images as float32 (N, C, H, W) with pixels scaled to [0, 1] (then normalised per
channel when the source says normalize: true) and feature rows as (N, F); a model returns logits
(N, classes). The CNN pools globally, so one file takes images of any size. The weights each file holds are the trial's first weights
(model.init: file, the default), so seeding here makes runs repeatable.
"""
import argparse
import os

import torch
from torch import nn


class ResidualBlock(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.relu(self.bn1(self.conv1(x)))
        return torch.relu(x + self.bn2(self.conv2(y)))


class SmallResNet(nn.Module):
    """A stem, two stages of one residual block each (the second at half the resolution), a head."""

    def __init__(self, channels: int, width: int, classes: int):
        super().__init__()
        self.stem = nn.Sequential(
            nn.Conv2d(channels, width, 3, padding=1, bias=False), nn.BatchNorm2d(width), nn.ReLU())
        self.stage1 = ResidualBlock(width)
        self.down = nn.Sequential(
            nn.Conv2d(width, 2 * width, 3, stride=2, padding=1, bias=False),
            nn.BatchNorm2d(2 * width), nn.ReLU())
        self.stage2 = ResidualBlock(2 * width)
        self.head = nn.Linear(2 * width, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.stage2(self.down(self.stage1(self.stem(x))))
        return self.head(torch.flatten(nn.functional.adaptive_avg_pool2d(x, 1), 1))


class Mlp(nn.Module):
    def __init__(self, features: int, hidden: int, classes: int):
        super().__init__()
        self.fc1 = nn.Linear(features, hidden)
        self.fc2 = nn.Linear(hidden, hidden)
        self.out = nn.Linear(hidden, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.out(torch.relu(self.fc2(torch.relu(self.fc1(x)))))


def export(model: nn.Module, path: str) -> None:
    model.eval()
    torch.jit.script(model).save(path)
    print(path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "models"))
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for width in (8, 16):
        torch.manual_seed(args.seed)
        export(SmallResNet(1, width, 10), os.path.join(args.out, f"cnn-w{width}.pt"))
        torch.manual_seed(args.seed)
        export(SmallResNet(3, width, 10), os.path.join(args.out, f"rgb-cnn-w{width}.pt"))
    for hidden in (32, 64):
        torch.manual_seed(args.seed)
        export(Mlp(49, hidden, 10), os.path.join(args.out, f"mlp-h{hidden}.pt"))


if __name__ == "__main__":
    main()
