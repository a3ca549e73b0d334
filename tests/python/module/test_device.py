"""chipless.Device: prepare once, launch many times with numpy arrays; outputs, statistics
and timelines as the simulator tools give them; ownership, closing and bad input."""
import json
import pathlib
import threading

import numpy as np
import pytest

import chipless
from chipless import tools

ROOT = pathlib.Path(__file__).resolve().parents[3]
VADD = ROOT / "models" / "kernels" / "vadd_dynamic.mlir"
SOFTMAX = ROOT / "models" / "graphs" / "softmax.mlir"


@pytest.fixture(scope="module")
def vadd(tmp_path_factory):
    return chipless.compile(VADD, tmp_path_factory.mktemp("vadd") / "prog")


@pytest.fixture(scope="module")
def softmax(tmp_path_factory):
    return chipless.compile(SOFTMAX, tmp_path_factory.mktemp("softmax") / "prog", arch="v5e")


def halves(n, seed):
    return np.random.default_rng(seed).uniform(-4, 4, n).astype(np.float16)


def softmax_reference(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def test_prepare_once_launch_many_with_a_size_known_at_launch(vadd):
    with chipless.Device("spyre") as device:
        program = device.prepare(vadd)
        assert program.kernel == "vadd_dynamic" and program.scalars == ["n"]
        assert [(a.name, a.role, a.dtype) for a in program.arguments] == [
            ("A", "input", "f16"), ("B", "input", "f16"), ("C", "output", "f16")]
        cycles = []
        for k, n in enumerate((4096, 65536, 8192)):
            a, b = halves(n, k), halves(n, k + 10)
            launch = device.launch(program, {"A": a}, B=b)
            c = launch.outputs["C"]
            assert c.dtype == np.float16 and c.shape == (n,)
            np.testing.assert_allclose(c.astype(np.float32),
                                       (a.astype(np.float32) + b.astype(np.float32)),
                                       rtol=2e-3, atol=2e-3)
            assert launch.number == k + 1 and launch.issued > 0
            cycles.append(launch.cycles)
        assert cycles[1] > cycles[0] > 0  # 16x the data takes longer
        # An explicit scalar must agree with the inputs' shape.
        with pytest.raises(chipless.ChiplessError, match="scalar n is 8192"):
            program(A=halves(4096, 1), B=halves(4096, 2), scalars={"n": 8192})


def test_outputs_stats_and_trace_match_the_simulator_tool(softmax, tmp_path):
    x = np.random.default_rng(7).standard_normal((100, 300)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    status, _, err = tools.run_tool([
        tools.tool("tpu-sim"), "run", softmax / "job.plan", "--input", f"X={tmp_path / 'x.npy'}",
        "--output", f"Y={tmp_path / 'y.npy'}", "--stats", tmp_path / "stats.json",
        "--trace", tmp_path / "trace.json"])
    assert status == 0, err
    launch = chipless.run(softmax, X=x, trace=tmp_path / "ours-trace.json")
    y = launch["Y"]
    np.testing.assert_array_equal(y, np.load(tmp_path / "y.npy"))
    np.testing.assert_allclose(y, softmax_reference(x), rtol=1.6e-2, atol=1e-3)
    launch.write_stats(tmp_path / "ours-stats.json")
    assert (tmp_path / "ours-stats.json").read_bytes() == (tmp_path / "stats.json").read_bytes()
    assert (tmp_path / "ours-trace.json").read_bytes() == (tmp_path / "trace.json").read_bytes()
    stats = launch.stats()
    flat = launch.stats_flat()
    assert flat and all(isinstance(v, float) for v in flat.values())
    tree = launch.stats(units=True)
    some_path = next(iter(flat))
    node, plain = tree, stats
    for part in some_path.replace("]", "").replace("[", ".").split("."):
        key = int(part) if part.isdigit() else part
        node, plain = node[key], plain[key]
    assert node["value"] == plain == flat[some_path] and node["unit"]


def test_each_launch_keeps_its_own_statistics(vadd):
    device = chipless.Device("spyre")
    program = device.prepare(vadd)
    small = program(A=halves(4096, 1), B=halves(4096, 2))
    large = program(A=halves(65536, 1), B=halves(65536, 2))  # taken small's statistics first
    last = program(A=halves(8192, 1), B=halves(8192, 2))
    device.close()  # takes last's
    for launch in (small, large, last):
        assert launch.stats()["chip"]["cycles"] == launch.cycles
    assert small.cycles < last.cycles < large.cycles


def test_a_launch_without_statistics(tmp_path):
    """statistics=False: the same outputs and cycles from a program of several kernels,
    and no statistics to read (an error that says why)."""
    program_dir = chipless.compile(ROOT / "models" / "graphs" / "spyre_mlp.mlir",
                                   tmp_path / "mlp")
    device = chipless.Device("spyre")
    program = device.prepare(program_dir)
    rng = np.random.default_rng(0)
    inputs = {a.name: rng.uniform(-1, 1, [int(d) for d in a.shape.strip("()").split(",")])
              for a in program.arguments if a.role == "input"}
    kept = device.launch(program, inputs)
    bare = device.launch(program, inputs, statistics=False)
    assert bare.cycles == kept.cycles and kept.stats()["chip"]["cycles"] == kept.cycles
    for name, value in kept.outputs.items():
        assert np.array_equal(value, bare.outputs[name])
    with pytest.raises(chipless.ChiplessError, match="made with statistics=False"):
        bare.stats()
    device.close()


def test_a_trace_collects_launches_one_after_another(vadd, tmp_path):
    trace = chipless.Trace()
    with chipless.Device("spyre") as device:
        program = device.prepare(vadd)
        device.launch(program, A=halves(4096, 1), B=halves(4096, 2), trace=trace)
        one = trace.events
        device.launch(program, A=halves(4096, 1), B=halves(4096, 2), trace=trace)
    assert one > 0 and trace.events == 2 * one and trace.dropped == 0
    trace.write(str(tmp_path / "t.json"))
    events = json.loads((tmp_path / "t.json").read_text())["traceEvents"]
    spans = [e for e in events if e.get("ph") == "X"]
    first, second = spans[:len(spans) // 2], spans[len(spans) // 2:]
    assert min(e["ts"] for e in second) >= max(e["ts"] + e["dur"] for e in first) - 1e-6


def test_launches_are_deterministic(softmax):
    x = np.random.default_rng(3).standard_normal((100, 300)).astype(np.float32)
    with chipless.Device("tpu", arch="v5e") as device:
        program = device.prepare(softmax)
        a, b = program(X=x), program(X=x)
    assert a.cycles == b.cycles
    np.testing.assert_array_equal(a["Y"], b["Y"])
    assert a.stats_flat() == b.stats_flat()


def test_timing_only_and_architecture_overrides(softmax):
    x = np.zeros((100, 300), np.float32)
    base = chipless.run(softmax, X=x)
    slow = chipless.run(softmax, timing_only=True, sets=["hbm.bandwidth_gb_s=100"])
    assert slow.outputs == {}
    assert slow.cycles > base.cycles
    with pytest.raises(chipless.ChiplessError, match="mxu"):
        chipless.run(softmax, X=x, sets=["mxu.rows=64"])  # planned with: refused


def test_a_device_has_one_owner(vadd):
    with chipless.Device("spyre", index=0) as device:
        with pytest.raises(chipless.ChiplessError, match="pid"):
            chipless.Device("spyre", index=0)
        other = chipless.Device("spyre")  # the first free one
        assert other.name == "spyre:1"
        other.close()
        assert device.name == "spyre:0"
    again = chipless.Device("spyre", index=0)  # given back by the with block
    again.close()


def test_a_closed_device_refuses_and_says_so(vadd):
    device = chipless.Device("spyre")
    program = device.prepare(vadd)
    device.close()
    assert device.closed and "closed" in repr(device)
    with pytest.raises(chipless.ChiplessError, match="its device spyre:0 is closed"):
        program(A=halves(4096, 1), B=halves(4096, 2))
    with pytest.raises(chipless.ChiplessError, match="spyre:0 is closed"):
        device.prepare(vadd)
    device.close()  # twice is fine


def test_bad_inputs_are_named(vadd):
    with chipless.Device("spyre") as device:
        program = device.prepare(vadd)
        with pytest.raises(chipless.ChiplessError, match="input 'B'.*is not bound"):
            program(A=halves(4096, 1))
        with pytest.raises(chipless.ChiplessError, match="input 'B' dimension 0 is 8192, but scalar n is 4096"):
            program(A=halves(4096, 1), B=halves(8192, 1))
        with pytest.raises(chipless.ChiplessError, match="'D' is not an argument"):
            program(A=halves(4096, 1), B=halves(4096, 1), D=halves(4096, 1))
        with pytest.raises(chipless.ChiplessError, match="'C' is an output"):
            program(A=halves(4096, 1), B=halves(4096, 1), C=halves(4096, 1))
        with pytest.raises(chipless.ChiplessError, match="complex128 array cannot become float16"):
            program(A=np.zeros(4096, complex), B=halves(4096, 1))
        with pytest.raises(chipless.ChiplessError, match="expected a number, got str"):
            program(A=halves(4096, 1), B=halves(4096, 1), scalars={"n": "4096"})
        with pytest.raises(chipless.ChiplessError, match="scalar 'm' is not an argument"):
            program(A=halves(4096, 1), B=halves(4096, 1), scalars={"m": 1})
        with pytest.raises(chipless.ChiplessError, match="expected a Program"):
            device.launch(str(vadd), A=halves(4096, 1))
        # float64 and strided arrays are converted; the launch after the errors still works.
        a = np.random.default_rng(0).uniform(-1, 1, 8192)[::2]
        c = program(A=a, B=np.zeros(4096))["C"]
        np.testing.assert_allclose(c, a.astype(np.float16), rtol=0, atol=0)


def test_device_memory(tmp_path):
    with chipless.Device("tpu", arch="v5e", chips=2) as device:
        assert device.kind == "tpu" and device.chips == 2
        address = device.allocate(1024, "buffer")
        data = np.arange(256, dtype=np.int32)
        device.copy_in(address, data)
        assert device.copy_out(address, 1024, chip=1).view(np.int32).tolist() == data.tolist()
        device.copy_in(address, b"\x01\x02", chip=0)
        assert device.copy_out(address, 4, chip=0).tolist() == [1, 2, 0, 0]
        assert device.copy_out(address, 4, chip=1).tolist() == [0, 0, 0, 0]
        with pytest.raises(chipless.ChiplessError):
            device.copy_in(address + 1000, np.zeros(64, np.uint8))  # past the allocation
        with pytest.raises(chipless.ChiplessError, match="no chip 5|chip 5"):
            device.copy_out(address, 4, chip=5)
        device.release(address)


def test_shares_of_a_device(tmp_path):
    """Two shares of one tpu-v4 in this process: each a device of one TensorCore and its own
    HBM window from address 0; a share of a Spyre card; a share that does not fit and a bad
    share text are clear errors."""
    with chipless.Device("tpu", arch="v4", index=5, share="cores=1") as a, \
            chipless.Device("tpu", arch="v4", index=5, share={"cores": 1, "memory": "8G"}) as b:
        assert a.name == b.name == "tpu:5"
        assert (a.share["first_core"], b.share["first_core"]) == (0, 1)
        assert b.share["memory_bytes"] == 8 << 30
        assert "chip.tensorcores=1" in a.share["overrides"]
        assert "tensorcores: 1" in a.arch_yaml
        assert a.allocate(64, "x") == b.allocate(64, "y") == 0
        a.copy_in(0, np.full(16, 1, np.int32))
        b.copy_in(0, np.full(16, 2, np.int32))
        assert a.copy_out(0, 64).view(np.int32).tolist() == [1] * 16
        assert b.copy_out(0, 64).view(np.int32).tolist() == [2] * 16
        with pytest.raises(chipless.ChiplessError, match="no 1 free TensorCore"):
            chipless.Device("tpu", arch="v4", index=5, share="cores=1")
    with chipless.Device("tpu", arch="v4", index=5) as whole:
        assert whole.share is None
    with chipless.Device("spyre", index=6, share="cores=4") as quarter:
        assert quarter.share["cores"] == 4 and "cores: 4" in quarter.arch_yaml
        with pytest.raises(chipless.ChiplessError, match="no 32 free core"):
            chipless.Device("spyre", index=6, share="cores=32")
    with pytest.raises(chipless.ChiplessError, match="share: cores: 'two' is not a whole number"):
        chipless.Device("tpu", share="cores=two")


def test_two_devices_from_two_threads(vadd, softmax):
    x = np.random.default_rng(5).standard_normal((100, 300)).astype(np.float32)
    a, b = halves(65536, 1), halves(65536, 2)
    results, errors = {}, []

    def spyre():
        try:
            with chipless.Device("spyre") as d:
                p = d.prepare(vadd)
                results["spyre"] = [p(A=a, B=b)["C"] for _ in range(3)]
        except Exception as e:  # reported below
            errors.append(e)

    def tpu():
        try:
            with chipless.Device("tpu", arch="v5e") as d:
                p = d.prepare(softmax)
                results["tpu"] = [p(X=x)["Y"] for _ in range(3)]
        except Exception as e:
            errors.append(e)

    threads = [threading.Thread(target=spyre), threading.Thread(target=tpu)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    for c in results["spyre"]:
        np.testing.assert_array_equal(c, results["spyre"][0])
    np.testing.assert_allclose(results["spyre"][0].astype(np.float32),
                               a.astype(np.float32) + b.astype(np.float32), rtol=2e-3, atol=2e-3)
    np.testing.assert_allclose(results["tpu"][2], softmax_reference(x), rtol=1.6e-2, atol=1e-3)


def test_architecture_descriptions():
    v5e = chipless.arch("v5e")
    assert v5e["chip"] == "tpu" and v5e["params"]
    key = next(k for k, p in v5e["params"].items() if p["type"] == "int" and p["role"] == "timing")
    changed = chipless.arch("v5e", sets=[f"{key}={v5e['params'][key]['value'] + 1}"])
    assert changed["params"][key]["value"] == v5e["params"][key]["value"] + 1
    assert changed["fingerprint"] != v5e["fingerprint"]
    with pytest.raises(chipless.ChiplessError, match="nosuch"):
        chipless.arch("v5e", sets=["nosuch=1"])
    with pytest.raises(chipless.ChiplessError, match="not a bundled architecture"):
        chipless.arch("v9")
    with pytest.raises(chipless.ChiplessError, match="device kind 'gpu'"):
        chipless.Device("gpu")


def test_the_package_loads_the_native_module_on_first_use():
    import chipless.native
    assert chipless.Device.__module__ == "chipless.device"
    assert pathlib.Path(chipless.native.load().__file__).parent == chipless.native.native_dir()
    with pytest.raises(AttributeError):
        chipless.no_such_thing
