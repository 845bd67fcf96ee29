# SPDX-License-Identifier: MIT
"""Portable stand-ins for backend ops on a device that lacks them (issue 29.4).

A trace records the op its GPU ran: `aten::miopen_convolution` on ROCm, `aten::cudnn_convolution`
on CUDA, flash or memory-efficient attention. On the CPU (or a GPU of the other vendor) torch
has no kernel for them ("Could not run 'aten::miopen_convolution' with arguments from the 'CPU'
backend"). Each here is replayed through the portable op that computes the same thing from the
same arguments: `aten::convolution` for the convolutions, the math of attention (softmax(Q K^T
x scale) V, causal when asked, grouped-query heads repeated) for the attention kernels. The
replay says so (a warning naming both ops); on a device that has the op, the op itself runs.

Each stand-in takes the recorded op's arguments as built (positional in its schema's order,
keyword-only ones as keywords) and returns its main output."""

import math

from .torchenv import torch


def _arg(args, kwargs, i, name, default=None):
    if name in kwargs:
        return kwargs[name]
    return args[i] if i < len(args) else default


def _conv(has_bias, transposed):
    """aten::convolution from a cuDNN/MIOpen convolution's arguments: (self, weight, [bias,]
    padding, [output_padding,] stride, dilation, groups, benchmark, deterministic[, allow_tf32])."""
    def run(*args, **kwargs):
        i = 2
        x, w = args[0], args[1]
        bias = None
        if has_bias:
            bias = _arg(args, kwargs, 2, "bias")
            i = 3
        padding = list(_arg(args, kwargs, i, "padding"))
        i += 1
        out_pad = [0] * len(padding)
        if transposed:
            out_pad = list(_arg(args, kwargs, i, "output_padding"))
            i += 1
        stride = list(_arg(args, kwargs, i, "stride"))
        dilation = list(_arg(args, kwargs, i + 1, "dilation"))
        groups = int(_arg(args, kwargs, i + 2, "groups", 1))
        return torch.ops.aten.convolution(x, w, bias, stride, padding, dilation, transposed, out_pad, groups)
    return run


def _attention(q, k, v, causal, scale, mask=None):
    """softmax(q k^T scale [+ mask]) v over [B, H, L, D] tensors, in float32 for the low
    precisions the CPU has no fast matmul for, back to q's dtype."""
    dtype = q.dtype
    if dtype in (torch.float16, torch.bfloat16):
        q, k, v = q.float(), k.float(), v.float()
    if k.shape[1] != q.shape[1] and k.shape[1] > 0 and q.shape[1] % k.shape[1] == 0:
        rep = q.shape[1] // k.shape[1]  # grouped-query attention: K/V heads shared
        k = k.repeat_interleave(rep, dim=1)
        v = v.repeat_interleave(rep, dim=1)
    if scale is None:
        scale = 1.0 / math.sqrt(q.shape[-1])
    s = torch.matmul(q, k.transpose(-2, -1)) * scale
    if causal:
        lq, lk = s.shape[-2], s.shape[-1]
        keep = torch.ones(lq, lk, dtype=torch.bool, device=s.device).tril(diagonal=lk - lq)
        s = s.masked_fill(~keep, float("-inf"))
    if mask is not None:
        s = s + mask.to(s.dtype) if mask.dtype != torch.bool else s.masked_fill(~mask, float("-inf"))
    return torch.matmul(torch.softmax(s, dim=-1), v).to(dtype)


def _bhld(dropout_at, causal_at, mask_at=None):
    """An SDPA kernel over [B, H, L, D] (q, k, v first): _scaled_dot_product_flash_attention,
    _scaled_dot_product_efficient_attention, _scaled_dot_product_cudnn_attention."""
    def run(*args, **kwargs):
        q, k, v = args[0], args[1], args[2]
        mask = _arg(args, kwargs, mask_at, "attn_bias") if mask_at is not None else None
        causal = bool(_arg(args, kwargs, causal_at, "is_causal", False))
        return _attention(q, k, v, causal, kwargs.get("scale"), mask)
    return run


def _blhd(causal_at, cum_at):
    """A kernel over [B, L, H, D] (q, k, v first): _flash_attention_forward,
    _efficient_attention_forward; variable-length batches (cumulative sequence lengths given)
    have no stand-in."""
    def run(*args, **kwargs):
        q, k, v = args[0], args[1], args[2]
        cum = _arg(args, kwargs, cum_at, "cum_seq_q")
        if cum is not None:
            raise NotImplementedError("variable-length batches (cum_seq_q) have no portable stand-in")
        causal = _arg(args, kwargs, causal_at, "is_causal", False)
        if not isinstance(causal, bool):  # _efficient_attention_forward: custom_mask_type 1 = causal
            causal = int(causal or 0) == 1
        out = _attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), causal, kwargs.get("scale"))
        return out.transpose(1, 2)
    return run


# recorded op -> (the portable op it is replayed as, its stand-in)
STAND_INS = {
    "aten::cudnn_convolution": ("aten::convolution", _conv(False, False)),
    "aten::cudnn_convolution_transpose": ("aten::convolution", _conv(False, True)),
    "aten::miopen_convolution": ("aten::convolution", _conv(True, False)),
    "aten::miopen_depthwise_convolution": ("aten::convolution", _conv(True, False)),
    "aten::miopen_convolution_transpose": ("aten::convolution", _conv(True, True)),
    "aten::_scaled_dot_product_flash_attention": ("attention math", _bhld(3, 4)),
    "aten::_scaled_dot_product_efficient_attention": ("attention math", _bhld(5, 6, 3)),
    "aten::_scaled_dot_product_cudnn_attention": ("attention math", _bhld(5, 6, 3)),
    "aten::_flash_attention_forward": ("attention math", _blhd(8, 3)),
    "aten::_efficient_attention_forward": ("attention math", _blhd(9, 4)),
}


def stand_in(base):
    """(what it is replayed as, the callable) for op base (ns::name), or None."""
    return STAND_INS.get(base)


def no_kernel(exc):
    """Whether exc is torch's "no kernel for this backend" error (a NotImplementedError)."""
    text = str(exc)
    return isinstance(exc, NotImplementedError) and ("Could not run" in text or "backend" in text)
