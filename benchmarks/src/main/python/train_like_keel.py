"""Plain PyTorch's side of TorchScriptVsPyTorchBenchmark: train a TorchScript CNN the way Keel's Trainer does.

Run with stock PyTorch (.tools/torchenv/bin/python train_like_keel.py COMMAND ...) and OMP_WAIT_POLICY=passive:

  export  --out PATH [--width W] [--seed S]
      The benchmark's CNN, exported with torch.jit.script: conv(1->W, 3x3, pad 1), ReLU, max-pool 2,
      conv(W->2W, 3x3, pad 1), ReLU, adaptive average pool, flatten, linear(2W->10). No batch norm, no dropout.

  train   --model PT --data DIR --batches NPY --warmup N --out PATH [--threads 2] [--lr 1e-3] [--eager]
          [--adam torch|keel]
      Loads the module with torch.jit.load (the same initial weights Keel starts from), reads the Fashion-MNIST
      IDX files itself, trains with torch.optim.Adam on exactly the rows of each batch that NPY lists (int32,
      one row per batch, indices into the train IDX file, as Keel's BatchOrder chose them after its validation
      hold-out), model in train mode, mean cross-entropy, reading the loss after every batch (as Keel does).
      --eager trains an eager nn.Module of the same class holding the module's weights instead of the
      TorchScript module. Prints one JSON line: samples/s over the batches after the first N, the test (t10k)
      accuracy of the final weights, the last loss and the mean of
      the last 50 (what Keel's progress reports). Writes the final module (TorchScript) or state_dict
      (--eager) to --out. --adam keel replaces torch.optim.Adam by Adam as Keel's optimizer computes it (DJL's
      fused kernel: the bias correction folded into the learning rate, epsilon added to sqrt(v) after it), to
      tell the optimizers' difference from the rest.

  compare --a PATH --b PATH
      Prints the largest absolute difference between the two files' parameters as JSON. Each file is a
      TorchScript module, a state_dict from torch.save, or a Keel checkpoint's parameters.djl (one format
      byte, 8 bytes of length, then the TorchScript zip).

Pixels become floats as Keel computes them, (b & 0xFF) * (1f / 255f) in float32, so both sides see the same
inputs bit for bit.
"""

import argparse
import gzip
import io
import json
import os
import sys
import time

import numpy
import torch
import torch.nn.functional as F
from torch import nn


class Cnn(nn.Module):
    def __init__(self, width: int = 16, classes: int = 10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, width, 3, padding=1),
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(width, 2 * width, 3, padding=1),
            nn.ReLU(),
            nn.AdaptiveAvgPool2d(1),
            nn.Flatten(),
        )
        self.head = nn.Linear(2 * width, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.features(x))


def idx(path: str) -> numpy.ndarray:
    with gzip.open(path, "rb") as f:
        data = f.read()
    dims = data[3]
    shape = [int.from_bytes(data[4 + 4 * i : 8 + 4 * i], "big") for i in range(dims)]
    return numpy.frombuffer(data, dtype=numpy.uint8, offset=4 + 4 * dims).reshape(shape)


def images_and_labels(data: str, prefix: str):
    pixels = idx(os.path.join(data, f"{prefix}-images-idx3-ubyte.gz"))
    labels = idx(os.path.join(data, f"{prefix}-labels-idx1-ubyte.gz"))
    # Keel: (b & 0xFF) * (1f / 255f), a float32 product (x / 255 differs in the last bit for some b)
    scale = numpy.float32(1) / numpy.float32(255)
    x = pixels.astype(numpy.float32) * scale
    return torch.from_numpy(x.reshape(-1, 1, pixels.shape[1], pixels.shape[2]).copy()), torch.from_numpy(
        labels.astype(numpy.int64)
    )


def cmd_export(a):
    torch.manual_seed(a.seed)
    torch.jit.script(Cnn(a.width).eval()).save(a.out)


class KeelAdam:
    """w -= lr * sqrt(1 - b2^t) / (1 - b1^t) * m / (sqrt(v) + eps), as Keel's ResumableAdam calls DJL's adamUpdate."""

    def __init__(self, params, lr, betas=(0.9, 0.999), eps=1e-8):
        self.params = list(params)
        self.lr, (self.b1, self.b2), self.eps = lr, betas, eps
        self.state = [(torch.zeros_like(p), torch.zeros_like(p)) for p in self.params]
        self.t = 0

    def zero_grad(self, set_to_none=True):
        for p in self.params:
            p.grad = None

    @torch.no_grad()
    def step(self):
        self.t += 1
        lr = self.lr * (1 - self.b2**self.t) ** 0.5 / (1 - self.b1**self.t)
        for p, (m, v) in zip(self.params, self.state):
            m.mul_(self.b1).add_(p.grad, alpha=1 - self.b1)
            v.mul_(self.b2).addcmul_(p.grad, p.grad, value=1 - self.b2)
            p.sub_(lr * m / (v.sqrt() + self.eps))


def cmd_train(a):
    torch.set_num_threads(a.threads)
    # Keel turns the profiling graph executor's optimisation off for TorchScript models (same kernels on
    # every batch, also after a resume); the same here, so both run the module the same way
    torch._C._set_graph_executor_optimize(False)
    scripted = torch.jit.load(a.model, map_location="cpu")
    if a.eager:
        model = Cnn(scripted.head.weight.shape[1] // 2, scripted.head.weight.shape[0])
        model.load_state_dict(scripted.state_dict())
    else:
        model = scripted
    model.train()
    train_x, train_y = images_and_labels(a.data, "train")
    test_x, test_y = images_and_labels(a.data, "t10k")
    batches = torch.from_numpy(numpy.load(a.batches).astype(numpy.int64))
    if a.adam == "keel":
        optimizer = KeelAdam(model.parameters(), lr=a.lr)
    else:
        optimizer = torch.optim.Adam(model.parameters(), lr=a.lr)
    n = batches.shape[0]
    if n <= a.warmup:
        raise SystemExit(f"{a.batches}: {n} batches, not more than the warm-up of {a.warmup}")
    started = None
    losses = []
    for b in range(n):
        rows = batches[b]
        x = train_x.index_select(0, rows)
        y = train_y.index_select(0, rows)
        optimizer.zero_grad(set_to_none=True)
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())  # Keel reads every batch's loss (divergence check, progress)
        if b + 1 == a.warmup:
            started = time.perf_counter()
    seconds = time.perf_counter() - started
    measured = n - a.warmup
    model.eval()
    correct = 0
    with torch.no_grad():
        for i in range(0, test_x.shape[0], 1000):
            correct += int((model(test_x[i : i + 1000]).argmax(1) == test_y[i : i + 1000]).sum())
    if a.eager:
        torch.save(model.state_dict(), a.out)
    else:
        model.save(a.out)
    print(
        json.dumps(
            {
                "batches": n,
                "measured_batches": measured,
                "batch_size": int(batches.shape[1]),
                "seconds": seconds,
                "samples_per_s": measured * batches.shape[1] / seconds,
                "test_accuracy": correct / test_x.shape[0],
                "last_loss": losses[-1],
                "loss_last_50": sum(losses[-50:]) / len(losses[-50:]),
                "threads": torch.get_num_threads(),
                "torch": torch.__version__,
                "omp_wait_policy": os.environ.get("OMP_WAIT_POLICY", ""),
            }
        )
    )


def parameters(path: str) -> dict:
    with open(path, "rb") as f:
        data = f.read()
    if len(data) > 11 and data[0] == 1 and data[9:11] == b"PK":
        if int.from_bytes(data[1:9], "big") != len(data) - 9:
            raise ValueError(f"{path}: not a Keel TorchScript parameters file")
        data = data[9:]
    if data[:2] == b"PK":
        try:
            return dict(torch.jit.load(io.BytesIO(data), map_location="cpu").named_parameters())
        except RuntimeError:
            pass
    return torch.load(io.BytesIO(data), map_location="cpu")


def cmd_compare(a):
    pa, pb = parameters(a.a), parameters(a.b)
    if sorted(pa) != sorted(pb):
        raise SystemExit(f"different parameters: {sorted(pa)} against {sorted(pb)}")
    per = {k: float((pa[k].detach() - pb[k].detach()).abs().max()) for k in sorted(pa)}
    scale = max(float(pa[k].detach().abs().max()) for k in pa)
    print(json.dumps({"max_abs_diff": max(per.values()), "max_abs_param": scale, "per_parameter": per}))


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="train_like_keel.py", description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="command", required=True)
    e = sub.add_parser("export")
    e.add_argument("--out", required=True)
    e.add_argument("--width", type=int, default=16)
    e.add_argument("--seed", type=int, default=0)
    e.set_defaults(fn=cmd_export)
    t = sub.add_parser("train")
    t.add_argument("--model", required=True)
    t.add_argument("--data", required=True)
    t.add_argument("--batches", required=True)
    t.add_argument("--warmup", type=int, default=10)
    t.add_argument("--out", required=True)
    t.add_argument("--threads", type=int, default=2)
    t.add_argument("--lr", type=float, default=1e-3)
    t.add_argument("--eager", action="store_true")
    t.add_argument("--adam", choices=["torch", "keel"], default="torch")
    t.set_defaults(fn=cmd_train)
    c = sub.add_parser("compare")
    c.add_argument("--a", required=True)
    c.add_argument("--b", required=True)
    c.set_defaults(fn=cmd_compare)
    return p


def main() -> int:
    args = parser().parse_args()
    try:
        args.fn(args)
    except Exception as e:  # one line for the Java side's message, not a traceback
        print(f"train_like_keel.py {args.command}: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
