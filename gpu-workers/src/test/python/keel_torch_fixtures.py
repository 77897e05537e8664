"""PyTorch fixtures for gpu-workers' tests: TorchScript files written by stock PyTorch, and their outputs.

Run with the venv torch-venv.sh makes (.tools/torchenv/bin/python keel_torch_fixtures.py COMMAND ...):

  mlp        --features F --classes C --hidden H --out PATH [--seed S]   Linear, ReLU, Linear (fc1, fc2)
  cnn        --channels C --size S --classes K --width W --out PATH [--seed S] [--batchnorm]
  regressor  --features F --outputs O --out PATH [--seed S]              one Linear (fc)
  state-dict --features F --classes C --out PATH [--hidden H] [--seed S] an mlp's pickled state_dict, not TorchScript
  predict    --model PATH --input IN.npy --output OUT.npy                forward pass, float32 in and out
  info       --model PATH                                                JSON of parameter and buffer shapes
  state      --model PATH                                                each parameter and buffer: NAME<TAB>values (float32, C order)

Every command is deterministic (seeded, one thread) and prints nothing on success except info;
errors go to stderr with a non-zero exit status.
"""

import argparse
import json
import sys

import numpy
import torch
from torch import nn


class Mlp(nn.Module):
    def __init__(self, features: int, hidden: int, classes: int):
        super().__init__()
        self.fc1 = nn.Linear(features, hidden)
        self.relu = nn.ReLU()
        self.fc2 = nn.Linear(hidden, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc2(self.relu(self.fc1(x)))


class Cnn(nn.Module):
    def __init__(self, channels: int, width: int, classes: int, batchnorm: bool):
        super().__init__()
        layers = [nn.Conv2d(channels, width, 3, padding=1)]
        if batchnorm:
            layers.append(nn.BatchNorm2d(width))
        layers += [nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(width, 2 * width, 3, padding=1)]
        if batchnorm:
            layers.append(nn.BatchNorm2d(2 * width))
        layers += [nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten()]
        self.features = nn.Sequential(*layers)
        self.head = nn.Linear(2 * width, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.features(x))


class Regressor(nn.Module):
    def __init__(self, features: int, outputs: int):
        super().__init__()
        self.fc = nn.Linear(features, outputs)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(x)


def save_scripted(model: nn.Module, out: str) -> None:
    # Saved in eval mode: a file whose BatchNorm is still in training mode would update its running
    # statistics on the first forward pass that loads it.
    torch.jit.script(model.eval()).save(out)


def cmd_mlp(a):
    save_scripted(Mlp(a.features, a.hidden, a.classes), a.out)


def cmd_cnn(a):
    model = Cnn(a.channels, a.width, a.classes, a.batchnorm)
    if a.batchnorm:
        # Fresh running statistics (mean 0, variance 1) would make BatchNorm an identity in eval
        # mode; a few training-mode passes give it statistics a loader could get wrong.
        model.train()
        with torch.no_grad():
            for _ in range(3):
                model(torch.randn(8, a.channels, a.size, a.size) * 2 + 0.5)
    save_scripted(model, a.out)


def cmd_regressor(a):
    save_scripted(Regressor(a.features, a.outputs), a.out)


def cmd_state_dict(a):
    torch.save(Mlp(a.features, a.hidden, a.classes).state_dict(), a.out)


def cmd_predict(a):
    model = torch.jit.load(a.model, map_location="cpu")
    model.eval()
    rows = numpy.load(a.input, allow_pickle=False)
    if rows.dtype != numpy.float32:
        raise SystemExit(f"{a.input}: dtype {rows.dtype}, expected float32")
    with torch.no_grad():
        out = model(torch.from_numpy(numpy.ascontiguousarray(rows)))
    numpy.save(a.output, out.detach().to(torch.float32).numpy(), allow_pickle=False)


def cmd_info(a):
    model = torch.jit.load(a.model, map_location="cpu")
    shapes = lambda named: {name: list(t.shape) for name, t in named}
    print(json.dumps({"parameters": shapes(model.named_parameters()), "buffers": shapes(model.named_buffers())}))


def cmd_state(a):
    model = torch.jit.load(a.model, map_location="cpu")
    for name, t in list(model.named_parameters()) + list(model.named_buffers()):
        # repr of a float32 widened to a Python float reads back to the same float32
        values = t.detach().to(torch.float32).flatten().tolist()
        print(name + "\t" + " ".join(repr(v) for v in values))


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="keel_torch_fixtures.py", description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="command", required=True)

    def command(name, fn, *ints, seeded=True):
        c = sub.add_parser(name)
        for flag in ints:
            c.add_argument(f"--{flag}", type=int, required=True)
        c.add_argument("--out", required=True)
        if seeded:
            c.add_argument("--seed", type=int, default=0)
        c.set_defaults(fn=fn)
        return c

    command("mlp", cmd_mlp, "features", "classes", "hidden")
    command("cnn", cmd_cnn, "channels", "size", "classes", "width").add_argument("--batchnorm", action="store_true")
    command("regressor", cmd_regressor, "features", "outputs")
    command("state-dict", cmd_state_dict, "features", "classes").add_argument("--hidden", type=int, default=8)
    c = sub.add_parser("predict")
    c.add_argument("--model", required=True)
    c.add_argument("--input", required=True)
    c.add_argument("--output", required=True)
    c.set_defaults(fn=cmd_predict, seed=0)
    c = sub.add_parser("info")
    c.add_argument("--model", required=True)
    c.set_defaults(fn=cmd_info, seed=0)
    c = sub.add_parser("state")
    c.add_argument("--model", required=True)
    c.set_defaults(fn=cmd_state, seed=0)
    return p


def main() -> int:
    args = parser().parse_args()
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    try:
        args.fn(args)
    except Exception as e:  # one line for the Java test's failure message, not a traceback
        print(f"keel_torch_fixtures.py {args.command}: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
