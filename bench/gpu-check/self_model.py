#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The GPU check's self trace: a small model profiled on the machine itself, so that replays are
judged against kernels of the same GPU, driver and torch (issue 26).

    self_model.py OUT.json [--device cuda|cpu]

A transformer block (layer norm, the QKV/projection/MLP GEMMs, scaled-dot-product attention,
GELU, softmax) and a conv net (convolution, batch norm, ReLU), each run forward (eval, no grad)
and as a training step with AdamW (its foreach ops), in fp32 and under bf16 autocast, profiled
once after a warm-up with record_shapes=True. On the CPU (the check's dry run) the sizes are
tiny and only fp32 runs.
"""
import argparse
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F


def attention(q, k, v):
    """Causal attention: torch's fused op where it has one (2.0 and newer)."""
    if hasattr(F, "scaled_dot_product_attention"):
        return F.scaled_dot_product_attention(q, k, v, is_causal=True)
    t = q.shape[-2]
    s = (q @ k.transpose(-2, -1)) / (q.shape[-1] ** 0.5)
    s = s.masked_fill(torch.ones(t, t, dtype=torch.bool, device=q.device).triu(1), float("-inf"))
    return torch.softmax(s, -1) @ v


class Block(nn.Module):
    def __init__(self, d, h):
        super().__init__()
        self.ln1, self.qkv, self.proj = nn.LayerNorm(d), nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.ln2, self.fc1, self.fc2, self.h = nn.LayerNorm(d), nn.Linear(d, 4 * d), nn.Linear(4 * d, d), h

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).view(b, t, 3, self.h, d // self.h).permute(2, 0, 3, 1, 4)
        a = attention(q, k, v).transpose(1, 2).reshape(b, t, d)
        x = x + self.proj(a)
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("out")
    p.add_argument("--device", default="cuda")
    o = p.parse_args(argv)
    dev = torch.device(o.device)
    cuda = dev.type == "cuda"
    torch.manual_seed(0)
    d, h, b, t, img = (1024, 16, 8, 512, (16, 3, 224, 224)) if cuda else (64, 4, 2, 16, (2, 3, 32, 32))
    tf = nn.Sequential(Block(d, h), Block(d, h)).to(dev)
    conv = nn.Sequential(nn.Conv2d(3, 64, 7, 2, 3), nn.BatchNorm2d(64), nn.ReLU(),
                         nn.Conv2d(64, 128, 3, 1, 1)).to(dev)
    opt = torch.optim.AdamW(list(tf.parameters()) + list(conv.parameters()), lr=1e-4)
    x = torch.randn(b, t, d, device=dev)
    im = torch.randn(*img, device=dev)
    precisions = [None, torch.bfloat16] if cuda else [None]

    def autocast(dt):
        if dt is None:
            return torch.autocast(dev.type, enabled=False)
        return torch.autocast(dev.type, dtype=dt)

    def forward(dt):
        tf.eval()
        conv.eval()
        with torch.no_grad(), autocast(dt):
            tf(x)
            conv(im)
            torch.softmax(x, -1)

    def train(dt):
        tf.train()
        conv.train()
        with autocast(dt):
            loss = tf(x).float().pow(2).mean() + conv(im).float().mean()
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)

    def everything():
        for dt in precisions:
            forward(dt)
            train(dt)

    everything()  # warm-up: cuBLAS/cuDNN choices, lazy modules, the optimizer's state
    if cuda:
        torch.cuda.synchronize(dev)
    acts = [torch.profiler.ProfilerActivity.CPU] + ([torch.profiler.ProfilerActivity.CUDA] if cuda else [])
    with torch.profiler.profile(activities=acts, record_shapes=True) as prof:
        everything()
        if cuda:
            torch.cuda.synchronize(dev)
    prof.export_chrome_trace(o.out)
    print("self trace: %s (%s, torch %s)" % (o.out, dev, torch.__version__))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
