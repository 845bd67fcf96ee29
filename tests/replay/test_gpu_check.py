# SPDX-License-Identifier: MIT
"""Unit tests of the GPU check's arithmetic and parsing (bench/gpu-check/gpu_check.py): the
statistics, the pass summaries and targets, ncu's CSV and the matching of its kernels, the
report. Hand-made inputs with answers worked out by hand; no GPU, no torch.

    python3 tests/replay/test_gpu_check.py [--tap]
"""
import importlib.util
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests"))

import taptest  # noqa: E402

_spec = importlib.util.spec_from_file_location("gpu_check", os.path.join(ROOT, "bench", "gpu-check", "gpu_check.py"))
G = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(G)

GEMM_K = "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_bf16_64x64_64x6_tn_align8>(cutlass_80_tensorop_bf16_s16816gemm_bf16_64x64_64x6_tn_align8::Params)"
ADD_K = "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, 3ul>)"


def entry(op, kernels, gpu_us=None, group_us=None, count=None, uid=1):
    e = {"op_name": op, "uid": uid, "kernels": [{"name": k} for k in kernels]}
    if gpu_us is not None:
        e["gpu_time_us"] = gpu_us
    if group_us is not None:
        e["group_gpu_time_us"] = group_us
        e["count"] = count
    return e


class Statistics(unittest.TestCase):
    def test_percentile_interpolates_as_numpy(self):
        v = [4.0, 1.0, 3.0, 2.0]
        self.assertEqual(G.percentile(v, 50), 2.5)
        self.assertAlmostEqual(G.percentile(v, 10), 1.3)
        self.assertAlmostEqual(G.percentile(v, 90), 3.7)
        self.assertEqual(G.percentile([7.0], 90), 7.0)
        self.assertIsNone(G.percentile([], 50))

    def test_ratio_stats_counts_within_ten_percent(self):
        st = G.ratio_stats([1.0, 1.1, 0.9, 1.2, 0.5, None, 0])
        self.assertEqual((st["n"], st["within_n"]), (5, 3))  # 1.1 and 0.9 are on the edge: in
        self.assertAlmostEqual(st["within_10pct"], 0.6)
        self.assertEqual(st["median"], 1.0)
        self.assertEqual(G.ratio_stats([]), {"n": 0})

    def test_trace_time_prefers_the_group_mean(self):
        self.assertEqual(G.trace_time_us(entry("aten::mm", [], gpu_us=9.0, group_us=30.0, count=3)), 10.0)
        self.assertEqual(G.trace_time_us(entry("aten::mm", [], gpu_us=9.0)), 9.0)
        self.assertIsNone(G.trace_time_us(entry("aten::mm", [], gpu_us=0)))


class Passes(unittest.TestCase):
    def test_verdicts(self):
        e = entry("aten::mm", [GEMM_K, ADD_K])
        self.assertEqual(G.kernel_verdict(e, {"kernels": [ADD_K, GEMM_K]}), "MATCH")
        self.assertEqual(G.kernel_verdict(e, {"kernels": [GEMM_K]}), "SUBSET")
        self.assertEqual(G.kernel_verdict(e, {"kernels": [GEMM_K, "other"]}), "MISMATCH")
        self.assertIsNone(G.kernel_verdict(e, {"kernels": []}))
        self.assertIsNone(G.kernel_verdict(entry("aten::mm", []), {"kernels": [GEMM_K]}))

    def test_summary_and_targets(self):
        entries = [
            entry("aten::addmm", [GEMM_K], gpu_us=100.0),          # ok, MATCH, event 1.05 kernel 1.0
            entry("aten::add", [ADD_K], gpu_us=4.0),                # ok, MISMATCH, event 2.0
            entry("aten::mm", [GEMM_K], gpu_us=50.0),               # ok, SUBSET of nothing: no names
            entry("aten::_flash_attention_forward", ["k"], gpu_us=9.0),   # unavailable
            entry("vllm::rms_norm", ["k"], gpu_us=2.0),             # custom, failed
            entry("aten::gelu", ["k"], gpu_us=3.0),                 # not attempted
        ]
        results = {
            0: {"status": "ok", "median_us": 105.0, "kernel_us": 100.0, "kernels": [GEMM_K]},
            1: {"status": "ok", "median_us": 8.0, "kernels": ["void other()"]},
            2: {"status": "ok", "median_us": 70.0, "kernels": []},
            3: {"status": "unavailable", "error": "not in torch"},
            4: {"status": "failed", "error": "boom"},
        }
        s = G.summarize_pass(entries, results)
        self.assertEqual(s["counts"], {"groups": 6, "attempted": 5, "ok": 3, "failed": 1, "unavailable": 1})
        self.assertEqual(s["core"], {"groups": 5, "ok": 3})
        self.assertEqual(s["kernels"], {"MATCH": 1, "FAMILY": 0, "LIBRARY": 0, "SUBSET": 0, "MISMATCH": 1,
                                        "none": 1})
        self.assertEqual(s["event_ratio"]["n"], 3)
        self.assertEqual(s["event_ratio"]["median"], 1.4)  # 1.05, 1.4, 2.0
        self.assertEqual(s["gemm_conv_event_ratio"]["n"], 2)
        self.assertEqual(s["gemm_conv_event_ratio"]["within_n"], 1)  # 1.05 in, 1.4 out
        self.assertEqual(s["kernel_ratio"]["n"], 1)
        t = {name: (round(m, 4), passed) for name, m, _t, passed in G.judge(s)}
        self.assertEqual(t["non-custom groups that replay ok"], (0.6, False))
        self.assertEqual(t["kernel names MATCH (non-custom, ok, with names)"], (0.5, False))
        self.assertEqual(t["kernel names MATCH or FAMILY"], (0.5, False))
        self.assertEqual(t["GEMM/conv kernel time within 10% of the trace's"], (1.0, True))
        self.assertEqual(t["kernel time within 10% of the trace's (all groups)"], (1.0, True))
        self.assertEqual(s["small_event_ratio"]["n"], 1)  # aten::add, 4 us in the trace
        # the flush and graph passes' targets, from their summaries
        t = {name: (round(m, 4), passed) for name, m, _t, passed in G.judge(s, flush=s, graph=s)}
        self.assertEqual(t["GEMM/conv event time with --flush-l2 within 10%"], (0.5, False))
        self.assertEqual(t["ops under 10 us with --cuda-graph: median event time / trace (at most)"], (2.0, False))

    def test_family_and_library_verdicts_count(self):
        entries = [entry("aten::add", [ADD_K], gpu_us=4.0, uid=i) for i in range(4)]
        results = {i: {"status": "ok", "median_us": 4.0, "kernels": [ADD_K], "kernels_vs_trace": v}
                   for i, v in enumerate(["MATCH", "FAMILY", "LIBRARY", "MATCH"])}
        s = G.summarize_pass(entries, results)
        self.assertEqual((s["kernels"]["MATCH"], s["kernels"]["FAMILY"], s["kernels"]["LIBRARY"]), (2, 1, 1))
        t = {name: (round(m, 4), passed) for name, m, _t, passed in G.judge(s)}
        self.assertEqual(t["kernel names MATCH or FAMILY"], (0.75, False))

    def test_targets_pass(self):
        entries = [entry("aten::mm", [GEMM_K], gpu_us=10.0, uid=i) for i in range(20)]
        results = {i: {"status": "ok", "median_us": 10.5, "kernel_us": 10.2, "kernels": [GEMM_K]} for i in range(20)}
        self.assertTrue(all(p for _n, _m, _t, p in G.judge(G.summarize_pass(entries, results))))


class Energy(unittest.TestCase):
    def test_integrate_power(self):
        # 100 W for a second, then a ramp to 200 W: [0.5, 1.5] holds 50 J and 62.5 J
        self.assertAlmostEqual(G.integrate_power([(0, 100), (1, 100), (2, 200)], 0.5, 1.5), 112.5)
        self.assertAlmostEqual(G.integrate_power([(2, 200), (0, 100), (1, 100)], 0, 2), 250.0)
        self.assertIsNone(G.integrate_power([(0, 100), (1, 100)], 0.5, 1.5))   # no sample after the end
        self.assertIsNone(G.integrate_power([(0, 100)], 0, 0.5))
        self.assertIsNone(G.integrate_power([(0, 100), (1, 100)], 1, 1))


class Raw(unittest.TestCase):
    def test_pack_raw(self):
        import os, tarfile, tempfile
        with tempfile.TemporaryDirectory() as d:
            work, dest = os.path.join(d, "w"), os.path.join(d, "raw.tar.gz")
            os.makedirs(os.path.join(work, "gemm.kdb", "mem"))
            for rel, n in (("report.json", 100), ("gemm.kdb/index.json", 50), ("gemm.kdb/mem/0.bin", 4000),
                           ("big.log", 300000), ("small.log", 10)):
                with open(os.path.join(work, rel), "wb") as f:
                    f.write(os.urandom(n))  # random: gzip cannot shrink it
            left = G.pack_raw(work, dest, 1 << 20)
            names = sorted(tarfile.open(dest).getnames())
            self.assertEqual(left, [])
            self.assertEqual(names, ["raw/big.log", "raw/gemm.kdb/index.json", "raw/report.json", "raw/small.log"])
            left = G.pack_raw(work, dest, 100000)  # the largest file goes first
            self.assertEqual(left, ["big.log"])
            self.assertLessEqual(os.path.getsize(dest), 100000)
            self.assertNotIn("raw/big.log", tarfile.open(dest).getnames())


class Kreplay(unittest.TestCase):
    def test_targets_by_kernel_name(self):
        ev = [{"ph": "X", "cat": "cpu_op", "name": "aten::add"},          # launched nothing: not a target
              {"ph": "X", "cat": "kernel", "name": "nvjet_sm90_tst_64x16_64x16_2x4_h_bz_bias_TNT"},
              {"ph": "X", "cat": "kernel", "name": "void at::native::vectorized_elementwise_kernel<4, x>(int)"},
              {"ph": "X", "cat": "kernel", "name": "sm90_xmma_gemm_bf16bf16_kernel__5x_cublas"},
              {"ph": "X", "cat": "kernel", "name": "triton_poi_fused_add_0"}]
        self.assertEqual(G.kreplay_targets(ev, G.Check.KERNEL_CLASSES),
                         [("gemm", 3), ("elementwise", 2), ("triton", 4)])

    def test_recorded_launches(self):
        import os, tempfile
        with tempfile.TemporaryDirectory() as d:
            self.assertEqual(G.recorded_launches(d), 0)
            with open(os.path.join(d, "index.json"), "w") as f:
                f.write('{"launches": [{}, {}]}')
            self.assertEqual(G.recorded_launches(d), 2)


NCU_CSV = '''==PROF== Connected to process 5150 (/opt/torch/.venv/bin/python3.12)
some output of the program, "quoted" too
==PROF== Profiling "distribution_elementwise_grid..." - 0: 0%....50%....100% - 9 passes
"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"
"0","5150","python3.12","127.0.0.1","void at::native::(anonymous namespace)::distribution_elementwise_grid_stride_kernel<float, 4>(int, ...)","1","7","(256, 1, 1)","(528, 1, 1)","0","9.0","Command line profiler metrics","gpu__time_duration.sum","nsecond","3,520"
"1","5150","python3.12","127.0.0.1","void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_bf16_64x64_64x6_tn_align8>(T1::Params)","1","7","(128, 1, 1)","(40, 2, 1)","0","9.0","Command line profiler metrics","gpu__time_duration.sum","nsecond","6,016"
"1","5150","python3.12","127.0.0.1","void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_bf16_64x64_64x6_tn_align8>(T1::Params)","1","7","(128, 1, 1)","(40, 2, 1)","0","9.0","Command line profiler metrics","sm__throughput.avg.pct_of_peak_sustained_elapsed","%","30.5"
"2","5150","python3.12","127.0.0.1","void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_bf16_64x64_64x6_tn_align8>(T1::Params)","1","7","(128, 1, 1)","(40, 2, 1)","0","9.0","Command line profiler metrics","gpu__time_duration.sum","nsecond","5,984"
"2","5150","python3.12","127.0.0.1","void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_bf16_64x64_64x6_tn_align8>(T1::Params)","1","7","(128, 1, 1)","(40, 2, 1)","0","9.0","Command line profiler metrics","sm__throughput.avg.pct_of_peak_sustained_elapsed","%","31.5"
==PROF== Disconnected from process 5150
'''


class Ncu(unittest.TestCase):
    def test_parse(self):
        rows = G.parse_ncu_csv(NCU_CSV)
        self.assertEqual(len(rows), 5)
        self.assertEqual(rows[0]["value"], 3520.0)
        self.assertEqual((rows[1]["metric"], rows[1]["unit"]), ("gpu__time_duration.sum", "nsecond"))
        with self.assertRaises(ValueError):
            G.parse_ncu_csv("==PROF== nothing profiled\n")

    def test_per_call_by_function_name(self):
        # ncu prints the template arguments of ::Params differently from CUPTI: the base name matches
        rows = G.parse_ncu_csv(NCU_CSV)
        v, n, calls = G.ncu_per_call(rows, [GEMM_K], "gpu__time_duration.sum")
        self.assertEqual((v, n, calls), (6000.0, 2, 2))     # the init kernel is left out
        v, n, _c = G.ncu_per_call(rows, [GEMM_K], "sm__throughput.avg.pct_of_peak_sustained_elapsed")
        self.assertEqual(n, 2)                               # a ratio: weighted by each kernel's time
        self.assertAlmostEqual(v, (30.5 * 6016 + 31.5 * 5984) / 12000)
        self.assertEqual(G.ncu_per_call(rows, [ADD_K], "gpu__time_duration.sum"), (None, 0, 0))

    def test_per_call_by_family(self):
        # the H200 run: ncu printed `unnamed>::` and no c10::, CUPTI the full names; the trace (H100)
        # ran the add with a vector width of 4, the H200 with 8
        ln = "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::BFloat16, float>(int)"
        add = ("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>, "
               "std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, 3ul>)")
        rows = [{"id": "0", "kernel": "void unnamed>::vectorized_layer_norm_kernel<BFloat16, float, 0>(int, T2)",
                 "metric": "gpu__time_duration.sum", "unit": "ns", "value": 4000.0},
                {"id": "1", "kernel": "void vectorized_elementwise_kernel<8, CUDAFunctor_add<BFloat16>, "
                 "std::array<char *, 3>>(int, T2, T3)", "metric": "gpu__time_duration.sum", "unit": "ns",
                 "value": 2000.0}]
        self.assertEqual(G.ncu_per_call(rows, [ln], "gpu__time_duration.sum"), (4000.0, 1, 1))
        self.assertEqual(G.ncu_per_call(rows, [add], "gpu__time_duration.sum"), (2000.0, 1, 1))
        self.assertEqual(G.kernel_family(add), "elementwise_kernel<BFloat16,CUDAFunctor_add>")
        self.assertEqual(G.kernel_family("nvjet_sm90_tst_64x16_64x16_2x4_h_bz_bias_TNT"),
                         "nvjet_sm#_tst_#x#_#x#_#x#_h_bz_bias_TNT")

    def test_base_names(self):
        self.assertEqual(G._base_kernel(GEMM_K), "cutlass::Kernel2")
        self.assertEqual(G._base_kernel("void at::native::(anonymous namespace)::foo<1>(int)"),
                         "at::native::{anon}::foo")
        self.assertEqual(G._base_kernel("sm90_xmma_gemm_bf16bf16_kernel__5x_cublas"),
                         "sm90_xmma_gemm_bf16bf16_kernel__5x_cublas")


class Report(unittest.TestCase):
    def test_stand_in_banner_and_sections(self):
        rep = {"mode": "stand-ins", "started": "2026-11-25T00:00:00+00:00", "seconds": 12.0, "budget_s": 450,
               "phases": {"env": {"status": "ok", "seconds": 1.0, "python": {"torch": "1.13"}, "stand_ins": "/s"},
                          "gdb": {"status": "skipped", "why": "gdb is not installed on this machine"}}}
        md = G.render_markdown(rep)
        self.assertTrue(md.startswith("# GPU check: DRY RUN AGAINST STAND-INS"))
        self.assertIn("Skipped: gdb is not installed on this machine.", md)
        rep["mode"] = "gpu"
        rep["phases"]["env"]["python"]["gpu"] = "NVIDIA H100 80GB HBM3"
        self.assertTrue(G.render_markdown(rep).startswith("# GPU check on NVIDIA H100 80GB HBM3"))


if __name__ == "__main__":
    sys.exit(taptest.main(sys.modules[__name__]))
