# SPDX-License-Identifier: MIT
"""Custom initializers (docs/replay-internals.md, "Custom initializers"): after the arguments
are built, the first initializer whose op_patterns name the op may fill them with values the op
needs (real routings, block tables ...). The user's plugins (Python files defining
INITIALIZERS) come first, in order, then the built-in PagedAttention and MoE-routing ones."""

import importlib.util
import os
import traceback

from .errors import ArgsError, one_line
from .torchenv import torch


class InitContext:
    """What a custom initializer sees (docs/replay-internals.md, "Custom initializers")."""

    def __init__(self, op_name, args, kwargs, arg_names, arg_types, entry, device, rng, options):
        self.op_name = op_name
        self.args = args
        self.kwargs = kwargs
        self.arg_names = arg_names
        self.arg_types = arg_types
        self.entry = entry
        self.device = device
        self.rng = rng
        self.options = options

    # helpers for initializers: find an argument by name, else at a fixed position
    def _where(self, names, pos, accept, pos_accept=None):
        for name in names:
            if name in self.arg_names:
                i = self.arg_names.index(name)
                if i < len(self.args) and accept(self.args[i]):
                    return ("pos", i)
            if name in self.kwargs and accept(self.kwargs[name]):
                return ("kw", name)
        if pos is not None and 0 <= pos < len(self.args) and (pos_accept or accept)(self.args[pos]):
            return ("pos", pos)
        return None

    def _value(self, where):
        return self.args[where[1]] if where[0] == "pos" else self.kwargs[where[1]]

    def get(self, names, pos=None, default=None):
        where = self._where(list(names), pos, lambda v: True)
        return default if where is None else self._value(where)

    def tensor(self, names, pos=None, ndim=None):
        def accept(v):
            return (isinstance(v, torch.Tensor) and (ndim is None or v.dim() == ndim))
        where = self._where(list(names), pos, accept)
        return None if where is None else self._value(where)

    def integer(self, names, pos=None):
        def accept(v):
            return isinstance(v, int) and not isinstance(v, bool)
        where = self._where(list(names), pos, accept)
        return None if where is None else self._value(where)

    def set(self, names, value, pos=None):
        """Replace an argument; at the fallback position only a value of the same type (or None)."""
        where = self._where(list(names), pos, lambda v: True,
                            lambda v: v is None or type(v) is type(value))
        if where is None:
            return False
        if where[0] == "pos":
            self.args[where[1]] = value
        else:
            self.kwargs[where[1]] = value
        return True


def _generator(ctx):
    gen = torch.Generator()
    gen.manual_seed(ctx.rng.getrandbits(63))
    return gen


def _split_even(total, parts):
    if parts <= 0:
        return []
    base, rem = divmod(total, parts)
    return [base + 1] * rem + [base] * (parts - rem)


class PagedAttentionInit:
    """vLLM paged attention: full contexts, distinct random KV blocks, query start locations."""

    name = "paged_attention"
    op_patterns = ["_C::paged_attention_v1", "_C::paged_attention_v2", "_rocm_C::paged_attention"]
    # positional fallbacks (vLLM's csrc/torch_bindings.cpp and csrc/rocm/torch_bindings.cpp)
    LAYOUTS = {
        "_C::paged_attention_v1": {"query": 1, "key_cache": 2, "value_cache": 3, "block_tables": 6,
                                   "seq_lens": 7, "block_size": 8, "max_seq_len": 9},
        "_C::paged_attention_v2": {"query": 4, "key_cache": 5, "value_cache": 6, "block_tables": 9,
                                   "seq_lens": 10, "block_size": 11, "max_seq_len": 12},
        "_rocm_C::paged_attention": {"query": 4, "key_cache": 5, "value_cache": 6, "block_tables": 9,
                                     "seq_lens": 10, "query_start_loc": 11, "block_size": 12,
                                     "max_seq_len": 13},
    }

    def initialize(self, ctx):
        lay = self.LAYOUTS.get(ctx.op_name, {})
        skip = "paged_attention: skipped: "
        bt = ctx.tensor(["block_tables"], lay.get("block_tables"), ndim=2)
        if bt is None:
            return skip + "no 2-d block_tables argument"
        sl = ctx.tensor(["seq_lens", "context_lens"], lay.get("seq_lens"), ndim=1)
        if sl is None:
            return skip + "no 1-d seq_lens argument"
        kc = ctx.tensor(["key_cache"], lay.get("key_cache"))
        vc = ctx.tensor(["value_cache"], lay.get("value_cache"))
        cache = kc if kc is not None and kc.dim() >= 1 else vc
        if cache is None or cache.dim() < 1 or cache.shape[0] < 1:
            return skip + "no key_cache argument to count the KV blocks"
        num_blocks = int(cache.shape[0])
        block_size = ctx.integer(["block_size"], lay.get("block_size"))
        if block_size is None or block_size <= 0:
            if vc is not None and vc.dim() == 4:
                block_size = int(vc.shape[3])
            elif kc is not None and kc.dim() == 5:
                block_size = int(kc.shape[3])
            else:
                return skip + "no block_size argument"
        notes = []
        num_seqs = min(int(sl.shape[0]), int(bt.shape[0]))
        width = int(bt.shape[1])
        capacity = width * block_size
        max_names = ["max_seq_len", "max_context_len"]
        max_len = ctx.integer(max_names, lay.get("max_seq_len"))
        if max_len is None or max_len <= 0:
            if max_len is not None:
                ctx.set(max_names, capacity, lay.get("max_seq_len"))
            max_len = capacity
            notes.append("max_seq_len taken from block_tables")
        elif max_len > capacity:
            notes.append("max_seq_len %d clamped to %d (block_tables width)" % (max_len, capacity))
            max_len = capacity
            ctx.set(max_names, max_len, lay.get("max_seq_len"))
        if num_seqs == 0 or max_len == 0:
            return skip + "empty batch"
        per_seq = -(-max_len // block_size)
        gen = _generator(ctx)
        table = torch.zeros(tuple(bt.shape), dtype=torch.int64)
        if num_seqs * per_seq <= num_blocks:
            chosen = torch.randperm(num_blocks, generator=gen)[:num_seqs * per_seq]
            table[:num_seqs, :per_seq] = chosen.view(num_seqs, per_seq)
            how = "distinct"
        elif per_seq <= num_blocks:
            for s in range(num_seqs):
                table[s, :per_seq] = torch.randperm(num_blocks, generator=gen)[:per_seq]
            how = "distinct within each sequence only (%d needed)" % (num_seqs * per_seq)
        else:
            table[:num_seqs, :per_seq] = torch.arange(per_seq) % num_blocks
            how = "reused (a sequence needs %d)" % per_seq
        bt.copy_(table.to(bt.dtype))
        sl.fill_(max_len)
        msg = "paged_attention: %d seqs x %d context, %d blocks of %d per seq, %s of %d blocks" % (
            num_seqs, max_len, per_seq, block_size, how, num_blocks)
        qsl = ctx.tensor(["query_start_loc", "cu_seqlens_q"], lay.get("query_start_loc"), ndim=1)
        if qsl is not None:
            q = ctx.tensor(["query"], lay.get("query"))
            tokens = int(q.shape[0]) if q is not None and q.dim() >= 1 else num_seqs
            lens, how_q = self.query_lens(num_seqs, tokens, ctx.entry.get("batch_context"),
                                          bool(ctx.options.get("pa_decode_first")))
            starts = [0]
            for n in lens:
                starts.append(starts[-1] + n)
            size = int(qsl.shape[0])
            if size < len(starts):
                notes.append("query_start_loc has %d entries for %d sequences" % (size, num_seqs))
                starts = starts[:size]
            else:
                starts += [starts[-1]] * (size - len(starts))
            qsl.copy_(torch.tensor(starts, dtype=torch.int64).to(qsl.dtype))
            msg += "; query_start_loc %s" % how_q
        if notes:
            msg += " (%s)" % "; ".join(notes)
        return msg

    @staticmethod
    def query_lens(num_seqs, tokens, bc, decode_first=False):
        if isinstance(bc, dict):
            try:
                npf = int(bc.get("n_prefill", 0) or 0)
                ptok = int(bc.get("prefill_tokens", 0) or 0)
                nd = int(bc.get("n_decode", 0) or 0)
                dtok = int(bc.get("decode_tokens", 0) or 0)
            except (TypeError, ValueError):
                npf = ptok = nd = dtok = -1
            if (npf >= 0 and nd >= 0 and npf + nd == num_seqs and ptok + dtok == tokens
                    and ptok >= npf and dtok >= nd):
                pre, dec = _split_even(ptok, npf), _split_even(dtok, nd)
                lens = dec + pre if decode_first else pre + dec
                return lens, "from batch_context (%d prefill with %d tokens, %d decode with %d)" % (
                    npf, ptok, nd, dtok)
            mismatch = "batch_context does not match %d seqs / %d tokens, " % (num_seqs, tokens)
        else:
            mismatch = ""
        if tokens == num_seqs:
            return [1] * num_seqs, mismatch + "decode guess (1 token per sequence)"
        if tokens > num_seqs:
            return _split_even(tokens, num_seqs), mismatch + "prefill guess (%d tokens over %d sequences)" % (
                tokens, num_seqs)
        return [1] * tokens + [0] * (num_seqs - tokens), mismatch + "guess (%d tokens for %d sequences)" % (
            tokens, num_seqs)


_FMOE_OPS = ["aiter::fmoe", "aiter::fmoe_int8_g1u0", "aiter::fmoe_g1u1", "aiter::fmoe_g1u1_tkw1",
             "aiter::fmoe_int8_g1u0_a16", "aiter::fmoe_g1u1_a16", "aiter::fmoe_fp8_blockscale_g1u1"]


class MoeRoutingInit:
    """aiter MoE kernels: a real token -> expert routing laid out as moe_sorting would."""

    name = "moe_routing"
    op_patterns = ["aiter::ck_moe_stage1", "aiter::ck_moe_stage2", "aiter::moe_stage1_g1u1"] + _FMOE_OPS
    _CK = {"tokens": 0, "w1": 1, "sorted_token_ids": 3, "sorted_expert_ids": 4, "num_valid_ids": 5,
           "out": 6, "topk": 7, "block_m": 11, "sorted_weights": 12}
    _FMOE = {"out": 0, "tokens": 1, "w1": 2, "sorted_token_ids": 4, "sorted_weights": 5,
             "sorted_expert_ids": 6, "num_valid_ids": 7, "topk": 8}
    _ASM_STAGE1 = {"tokens": 0, "w1": 1, "sorted_token_ids": 3, "sorted_expert_ids": 4, "num_valid_ids": 5,
                   "out": 6, "block_m": 9, "sorted_weights": 15}
    BLOCK_M_PREFERENCE = (32, 64, 128, 16, 256, 8, 4, 2, 1)

    def layout(self, op):
        if op in ("aiter::ck_moe_stage1", "aiter::ck_moe_stage2"):
            return self._CK
        if op == "aiter::moe_stage1_g1u1":
            return self._ASM_STAGE1
        if op in _FMOE_OPS:
            return self._FMOE
        return {}

    def initialize(self, ctx):
        lay = self.layout(ctx.op_name)
        skip = "moe_routing: skipped: "
        tokens_t = ctx.tensor(["hidden_states", "inter_states", "input", "a1", "a2"], lay.get("tokens"))
        if tokens_t is None or tokens_t.dim() < 1:
            return skip + "no hidden_states/input argument"
        w1 = ctx.tensor(["w1", "gate"], lay.get("w1"))
        if w1 is None or w1.dim() < 1:
            return skip + "no w1/gate argument to count the experts"
        sti = ctx.tensor(["sorted_token_ids", "sorted_ids"], lay.get("sorted_token_ids"), ndim=1)
        if sti is None:
            return skip + "no 1-d sorted_token_ids argument"
        sei = ctx.tensor(["sorted_expert_ids", "expert_ids"], lay.get("sorted_expert_ids"), ndim=1)
        if sei is None:
            return skip + "no 1-d sorted_expert_ids argument"
        nvi = ctx.tensor(["num_valid_ids", "num_tokens_post_padded", "num_tokens_post_pad"],
                         lay.get("num_valid_ids"))
        if nvi is None or nvi.numel() < 1:
            return skip + "no num_valid_ids argument"
        sw = ctx.tensor(["sorted_weights", "sorted_weight_buf"], lay.get("sorted_weights"), ndim=1)
        m = int(tokens_t.shape[0])
        experts = int(w1.shape[0])
        topk = ctx.integer(["topk"], lay.get("topk"))
        if topk is None or topk <= 0:
            out = ctx.tensor(["out"], lay.get("out"))
            if out is not None and out.dim() == 3:
                topk = int(out.shape[1])
            elif ctx.op_name == "aiter::ck_moe_stage2" and tokens_t.dim() == 3:
                topk = int(tokens_t.shape[1])
            else:
                return skip + "no topk argument"
        if m == 0 or experts == 0:
            return skip + "no tokens or no experts"
        if topk > experts:
            return skip + "topk %d > %d experts" % (topk, experts)
        len_t, len_e = int(sti.numel()), int(sei.numel())
        block_m = ctx.integer(["block_m", "block_size"], lay.get("block_m"))
        guessed = ""
        if block_m is None or block_m <= 0:
            block_m = 32
            for cand in self.BLOCK_M_PREFERENCE:
                if len_e > 0 and -(-len_t // cand) == len_e:
                    block_m = cand
                    break
            guessed = " (guessed)"
        opts = ctx.options
        dist = str(opts.get("moe_distribution", "uniform")).lower()
        gen = _generator(ctx)
        if dist == "zipf":
            s = float(opts.get("moe_zipf_s", 1.2))
            ranks = torch.randperm(experts, generator=gen)
            probs = torch.empty(experts, dtype=torch.float64)
            probs[ranks] = torch.tensor([1.0 / (k + 1) ** s for k in range(experts)], dtype=torch.float64)
            dist_txt = "zipf s=%g" % s
        elif dist == "uniform":
            probs = torch.ones(experts, dtype=torch.float64)
            dist_txt = "uniform"
        else:
            return skip + "unknown moe_distribution %r (uniform, zipf)" % dist
        chunks = []
        for start in range(0, m, 4096):  # bounded memory for large batches
            rows = min(4096, m - start)
            chunks.append(torch.multinomial(probs.expand(rows, experts).contiguous(), topk,
                                            replacement=False, generator=gen))
        topk_ids = torch.cat(chunks)
        packed = str(opts.get("moe_token_ids", "packed")).lower() != "plain"
        sorted_ids, expert_blocks, valid, used_blocks, counts, truncated = self.layout_routing(
            topk_ids, experts, block_m, len_t, len_e, packed)
        sti.copy_(sorted_ids.to(sti.dtype))
        blocks = torch.zeros(len_e, dtype=torch.int64)
        blocks[:used_blocks] = expert_blocks[:used_blocks]
        sei.copy_(blocks.to(sei.dtype))
        nv = torch.zeros(int(nvi.numel()), dtype=torch.int64)
        nv[0] = valid
        if nv.numel() > 1:
            nv[1] = m
        nvi.copy_(nv.view(tuple(nvi.shape)).to(nvi.dtype))
        if sw is not None and sw.numel() == len_t:
            sentinel = self.sentinel(m, topk, packed)
            weights = torch.where(sorted_ids != sentinel, torch.full((len_t,), 1.0 / topk),
                                  torch.zeros(len_t))
            sw.copy_(weights.to(sw.dtype))
        busiest = int(counts.max()) if counts.numel() else 0
        idle = int((counts == 0).sum())
        msg = ("moe_routing: %d tokens x top%d over %d experts (%s), block_m %d%s: %d blocks, %d valid slots "
               "of %d; busiest expert %d, idle experts %d" % (
                   m, topk, experts, dist_txt, block_m, guessed, used_blocks, valid, len_t, busiest, idle))
        if truncated:
            msg += " (truncated: the routing needs %d blocks)" % truncated
        return msg

    @staticmethod
    def sentinel(m, topk, packed):
        return (topk << 24) | m if packed else m

    @classmethod
    def layout_routing(cls, topk_ids, experts, block_m, len_t, len_e, packed):
        """Sorted token ids / expert id per block / valid count, as aiter's moe_sorting lays them out."""
        m, topk = topk_ids.shape
        flat = topk_ids.reshape(-1).to(torch.int64)
        n = flat.numel()
        idx = torch.arange(n, dtype=torch.int64)
        order = torch.argsort(flat * n + idx)  # by expert, stable in (token, slot)
        counts = torch.bincount(flat, minlength=experts)
        nblk = (counts + block_m - 1) // block_m
        padded = nblk * block_m
        pad_off = torch.cumsum(padded, 0) - padded
        unpad_off = torch.cumsum(counts, 0) - counts
        sorted_e = flat[order]
        pos = pad_off[sorted_e] + (idx - unpad_off[sorted_e])
        token = order // topk
        slot = order % topk
        value = (slot << 24) | token if packed else token
        total_blocks = int(nblk.sum())
        max_blocks = min(len_t // block_m, len_e)
        truncated = 0
        used_blocks = total_blocks
        if total_blocks > max_blocks:
            truncated = total_blocks
            used_blocks = max_blocks
            keep = pos < used_blocks * block_m
            pos, value = pos[keep], value[keep]
        buf = torch.full((len_t,), cls.sentinel(m, topk, packed), dtype=torch.int64)
        buf[pos] = value
        expert_blocks = torch.repeat_interleave(torch.arange(experts, dtype=torch.int64), nblk)
        return buf, expert_blocks, used_blocks * block_m, used_blocks, counts, truncated


BUILTIN_INITIALIZERS = [PagedAttentionInit(), MoeRoutingInit()]


class Plugins:
    """The initializers of plugin files, loaded once per file (again when it changes)."""

    def __init__(self):
        self._loaded = {}  # path -> (mtime, initializers)

    def load(self, path):
        if not isinstance(path, str):
            raise ArgsError("init_plugins must be a list of file names")
        try:
            mtime = os.stat(path).st_mtime
        except OSError as exc:
            raise ArgsError("init plugin %s: %s" % (path, exc.strerror or exc))
        cached = self._loaded.get(path)
        if cached and cached[0] == mtime:
            return cached[1]
        name = "tlreplay_init_plugin_%d" % len(self._loaded)
        try:
            spec = importlib.util.spec_from_file_location(name, path)
            if spec is None or spec.loader is None:
                raise ImportError("not a Python file")
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
        except KeyboardInterrupt:
            raise
        except BaseException as exc:
            raise ArgsError("init plugin %s: %s" % (path, one_line(exc)))
        inits = getattr(module, "INITIALIZERS", None)
        if not isinstance(inits, (list, tuple)):
            raise ArgsError("init plugin %s defines no INITIALIZERS list" % path)
        for obj in inits:
            if not hasattr(obj, "op_patterns") or not callable(getattr(obj, "initialize", None)):
                raise ArgsError("init plugin %s: %r has no op_patterns or initialize()" % (path, obj))
        self._loaded[path] = (mtime, list(inits))
        return list(inits)

    def for_request(self, req):
        """The request's init_plugins' initializers, then the built-in ones."""
        plugins = req.get("init_plugins") or []
        if not isinstance(plugins, list):
            raise ArgsError("init_plugins must be a list of file names")
        out = []
        for path in plugins:
            out.extend(self.load(path))
        return out + BUILTIN_INITIALIZERS


def run(inits, entry, names, arguments, device, rng, options, warn, verbose, log):
    """Run the first initializer matching one of names (the entry's op_name, ns::name, what is
    called) on the built arguments: its `init` lines. One that raises is reported, not fatal."""
    for init in inits:
        patterns = getattr(init, "op_patterns", ()) or ()
        if isinstance(patterns, str):
            patterns = [patterns]
        match = next((p for p in patterns if p in names), None)
        if match is None:
            continue
        label = getattr(init, "name", None) or type(init).__name__
        ctx = InitContext(match, arguments.args, arguments.kwargs, arguments.names, arguments.types,
                          entry, device, rng, options)
        try:
            msg = init.initialize(ctx)
        except KeyboardInterrupt:
            raise
        except Exception as exc:
            if verbose:
                traceback.print_exc(file=log)
            warn("initializer %s failed: %s" % (label, one_line(exc)))
            return ["%s: failed: %s" % (label, one_line(exc))]
        return [str(msg) if msg is not None else "%s: applied" % label]
    return []
