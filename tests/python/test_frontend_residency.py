"""Intermediates kept in the scratchpad between kernels: a tensor one kernel writes and only
the next reads stays in its cores' scratchpads when both kernels give tile t the same block
of it (docs/frontend.md, "Intermediates in the scratchpad"). Checked against the same job
compiled with --keep-in-scratchpad=false, which sends every intermediate through device
memory, and against numpy.
"""
import json
import re

import numpy as np
import pytest

from frontend_util import (BIN, attention_graph, compile_graph, f16, native_module_built, run,
                           simulate, softmax_ref, softmax_matmul_graph)

H, S, D = 4, 128, 64


def attention_inputs():
    rng = np.random.default_rng(7)
    mask = np.triu(np.full((S, S), -30000.0, np.float32), 1).astype(np.float16)
    return {"Q": f16(rng, H, S, D), "K": f16(rng, H, S, D), "V": f16(rng, H, S, D), "mask": mask}


def attention_reference(x):
    q, k, v = (x[n].astype(np.float32) for n in "QKV")
    s = q @ k.transpose(0, 2, 1) / np.sqrt(D) + x["mask"].astype(np.float32)
    p = np.stack([softmax_ref(h) for h in s])
    return p @ v


def dram_bytes(tmp):
    return json.loads((tmp / "stats.json").read_text())["chip"]["dram"]["bytes"]["value"]


def test_attention_probabilities_stay_in_the_scratchpad(tmp_path):
    """The probabilities P = softmax(Q K^T + mask) [4, 128, 128] of the fused matmul-softmax
    kernel feed the next kernel's matmul as A, tile for tile: each core keeps its 32 x 128
    block, and P goes neither to device memory nor back. The outputs are the same bits as
    with P in device memory, close to numpy's; DRAM traffic drops by P written and read."""
    graph = attention_graph(H, S, D)
    kept, dump = compile_graph(tmp_path, graph, "kept")
    sent, _ = compile_graph(tmp_path, graph, "sent", flags=["--keep-in-scratchpad=false"])
    divisions = (dump / "divisions.txt").read_text()
    assert ("t2 stays in the scratchpad for k3_matmul: each tile's 32 x 128 block, 8192 B at "
            "byte 0 of its core's") in divisions
    producer, consumer = (dump / "k2_matmul_softmax.mlir").read_text(), (dump / "k3_matmul.mlir").read_text()
    for kernel in (producer, consumer):
        assert "#ktdp.memory_space<ct_local>" in kernel
        assert "%t2_ptr" not in kernel
    # P is no buffer of the job any more; with --keep-in-scratchpad=false it is.
    buffers = lambda out: {b["name"] for b in json.loads((out / "job.plan").read_text()).get("buffers", [])}
    assert "t2" not in buffers(kept) and "t2" in buffers(sent)

    x = attention_inputs()
    got = simulate(tmp_path, kept, x, ["O"])["O"]
    kept_dram = dram_bytes(tmp_path)
    ref = simulate(tmp_path, sent, x, ["O"])["O"]
    sent_dram = dram_bytes(tmp_path)
    assert np.array_equal(got, ref)
    err = np.abs(got - attention_reference(x))
    assert err.max() < 2e-2, err.max()
    p_bytes = H * S * S * 2
    assert sent_dram - kept_dram == 2 * p_bytes, (sent_dram, kept_dram)


def test_three_launches_of_the_tool_give_the_bits_of_one(tmp_path):
    """`spyre-sim run --launches 3`: the job prepared once and launched three times, the
    scratchpads keeping what the launch before left; the last launch's outputs are the bits
    of a single launch's."""
    kept, _ = compile_graph(tmp_path, attention_graph(H, S, D), "kept")
    x = attention_inputs()
    once = simulate(tmp_path, kept, x, ["O"], raw=True)["O"]
    thrice = simulate(tmp_path, kept, x, ["O"], flags=["--launches", "3"], raw=True)["O"]
    assert np.array_equal(once, thrice)


@pytest.mark.skipif(not native_module_built(),
                    reason="the Python module is not built in this tree (SAN=1 builds none)")
def test_kept_blocks_give_the_same_outputs_launch_after_launch(tmp_path):
    """A job prepared once and launched three times on one device with different inputs,
    whose scratchpads keep what the last launch left: each launch writes P before reading
    it, so each gives its own input's result, and the same input the same bits."""
    import chipless
    kept, _ = compile_graph(tmp_path, attention_graph(H, S, D), "kept")
    x = attention_inputs()
    y = dict(x, Q=(x["Q"].astype(np.float32) * -0.5).astype(np.float16))
    with chipless.Device("spyre") as device:
        job = device.prepare(str(kept))
        first = np.array(job(**x)["O"], np.float32)
        other = np.array(job(**y)["O"], np.float32)
        again = np.array(job(**x)["O"], np.float32)
    assert np.array_equal(first, again)
    assert np.abs(first - attention_reference(x)).max() < 2e-2
    assert np.abs(other - attention_reference(y)).max() < 2e-2


def test_a_graph_result_or_a_tensor_read_later_goes_through_device_memory(tmp_path):
    """P returned as a result of the graph must reach device memory (the host reads it), so
    nothing stays in the scratchpad; the outputs still match numpy."""
    graph = attention_graph(H, S, D).replace(
        '-> (tensor<4x128x64xf16> {graph.name = "O"})',
        '-> (tensor<4x128x64xf16> {graph.name = "O"}, tensor<4x128x128xf16> {graph.name = "P"})').replace(
        "return %o : tensor<4x128x64xf16>", "return %o, %p : tensor<4x128x64xf16>, tensor<4x128x128xf16>")
    assert '{graph.name = "P"}' in graph
    out, dump = compile_graph(tmp_path, graph, "both")
    assert "stays in the scratchpad" not in (dump / "divisions.txt").read_text()
    x = attention_inputs()
    got = simulate(tmp_path, out, x, ["O"])["O"]
    assert np.abs(got - attention_reference(x)).max() < 2e-2


def test_compiles_are_deterministic_and_the_flag_applies_to_graphs_only(tmp_path):
    """Two compiles of the graph give the same binaries; --keep-in-scratchpad=false on a KTIR
    kernel is an error naming the flag."""
    graph = attention_graph(H, S, D)
    a, _ = compile_graph(tmp_path, graph, "a")
    b, _ = compile_graph(tmp_path, graph, "b")
    for f in sorted(p.name for p in a.iterdir()):
        assert (a / f).read_bytes() == (b / f).read_bytes(), f
    kernel = tmp_path / "k.mlir"
    kernel.write_text((tmp_path / "a-dump" / "k3_matmul.mlir").read_text())
    r = run(BIN / "spyre-compile", kernel, "-o", tmp_path / "k-out", "--keep-in-scratchpad=false", ok=False)
    assert r.returncode != 0
    assert "--keep-in-scratchpad apply to tensor graphs only" in r.stderr


def simulated_cycles(tmp):
    return json.loads((tmp / "stats.json").read_text())["chip"]["cycles"]["value"]


def test_the_reader_is_divided_for_what_stays(tmp_path):
    """A softmax of 2048 x 512 feeding a matmul by 512 x 64: on its own the matmul would
    split K over tiles of 64 rows; divided instead as the softmax is (32 tiles of 64 rows,
    K whole), the probabilities stay in the scratchpad, and the estimate less the saved
    traffic is lower. divisions.txt says why; the job is faster in the simulator; the
    outputs are the same bits; --division for the matmul keeps the cost model's choice."""
    graph = softmax_matmul_graph(2048, 512, 64)
    kept, dump = compile_graph(tmp_path, graph, "kept")
    sent, sent_dump = compile_graph(tmp_path, graph, "sent", flags=["--keep-in-scratchpad=false"])
    divisions = (dump / "divisions.txt").read_text()
    assert "t1 stays in the scratchpad for k2_matmul: each tile's 64 x 512 block" in divisions
    why = re.search(r"  \[(\d+)\] for what it keeps in the scratchpad: .* below \[(\d+)\]'s", divisions)
    assert why, divisions
    chosen, by_cost = why.groups()
    assert f"  * [{chosen}] 32 x 1 tiles of 64 x 64" in divisions
    assert f"  * [{by_cost}]" in (sent_dump / "divisions.txt").read_text()

    rng = np.random.default_rng(11)
    x = {"x": f16(rng, 2048, 512, scale=4.0), "w": f16(rng, 512, 64)}
    got = simulate(tmp_path, kept, x, ["y"])["y"]
    kept_cycles = simulated_cycles(tmp_path)
    simulate(tmp_path, sent, x, ["y"])
    sent_cycles = simulated_cycles(tmp_path)
    want = softmax_ref(x["x"].astype(np.float32)) @ x["w"].astype(np.float32)
    assert np.abs(got - want).max() < 2e-2
    assert kept_cycles < sent_cycles, (kept_cycles, sent_cycles)
    # The same divisions with the probabilities through device memory: the same bits.
    same, _ = compile_graph(tmp_path, graph, "same",
                            flags=[f"--division=k2_matmul={chosen}", "--keep-in-scratchpad=false"])
    assert np.array_equal(got, simulate(tmp_path, same, x, ["y"])["y"])

    forced, forced_dump = compile_graph(tmp_path, graph, "forced", flags=[f"--division=k2_matmul={by_cost}"])
    text = (forced_dump / "divisions.txt").read_text()
    assert "for what it keeps" not in text and "stays in the scratchpad" not in text
