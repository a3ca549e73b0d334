"""chipless.DeviceTensor: tensors that stay in device memory between launches, in the layout
the compilers give their arguments, bound to programs in place; host copies with their
modelled link time; bad bindings named."""
import pathlib

import numpy as np
import pytest

import chipless

ROOT = pathlib.Path(__file__).resolve().parents[3]
SOFTMAX = ROOT / "models" / "graphs" / "softmax.mlir"
SPYRE_MLP = ROOT / "models" / "graphs" / "spyre_mlp.mlir"


def softmax_reference(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


@pytest.fixture(scope="module")
def softmax(tmp_path_factory):
    return chipless.compile(SOFTMAX, tmp_path_factory.mktemp("softmax") / "prog", arch="v5e")


def test_launches_chain_through_device_tensors_without_the_host(softmax):
    x = np.random.default_rng(3).standard_normal((100, 300)).astype(np.float32)
    with chipless.Device("tpu", arch="v5e") as device:
        program = device.prepare(softmax)
        a = device.tensor(x)
        b = device.empty((100, 300), "f32")
        assert a.nbytes == device.tensor_bytes((100, 300), "f32") == 100 * 384 * 4
        first = program(X=a, Y=b)
        assert first.outputs == {}  # Y stayed on the device
        program(X=b, Y=a)           # and feeds the next launch where it lies
        np.testing.assert_allclose(a.read(), softmax_reference(softmax_reference(x)),
                                   rtol=1e-5, atol=1e-6)
        # the same launch with host arrays gives the same bytes
        host = program(X=x).outputs["Y"]
        assert np.array_equal(b.read(), host)


def test_host_copies_take_the_modelled_link_time():
    with chipless.Device("tpu", arch="v5e") as device:
        params = chipless.arch("v5e")["params"]
        latency = params["host.link_latency_us"]["value"] * 1e-6
        bandwidth = params["host.link_gb_s"]["value"] * 1e9
        t = device.empty((64, 256), "bf16")
        seconds = t.write(np.ones((64, 256), np.float32))
        assert seconds == pytest.approx(latency + 64 * 256 * 2 / bandwidth)
        assert t.read().dtype == np.float32  # bf16 comes back as float32
        assert device.link_seconds == pytest.approx(2 * seconds)


def test_a_spyre_front_end_program_binds_stick_layout_tensors(tmp_path):
    program_dir = chipless.compile(SPYRE_MLP, tmp_path / "mlp")
    rng = np.random.default_rng(5)
    shapes = {"x": (128, 256), "W1": (256, 512), "b1": (512,), "W2": (512, 256), "b2": (256,)}
    inputs = {n: (rng.standard_normal(s) * 0.1).astype(np.float16) for n, s in shapes.items()}
    with chipless.Device("spyre") as device:
        program = device.prepare(program_dir)
        on_host = program(inputs).outputs["y"]
        tensors = {n: device.tensor(v) for n, v in inputs.items()}
        y = device.empty((128, 256), "f16")
        program(tensors, y=y)
        assert np.array_equal(y.read(), on_host)


def test_bad_bindings_are_named(softmax):
    with chipless.Device("tpu", arch="v5e") as device, \
            chipless.Device("tpu", arch="v5e") as other:
        program = device.prepare(softmax)
        elsewhere = other.empty((100, 300))
        with pytest.raises(chipless.ChiplessError, match="device tensor 'X' is on tpu:"):
            program(X=elsewhere)
        with pytest.raises(chipless.ChiplessError, match="device tensor 'X' is bf16 but"):
            program(X=device.empty((100, 300), "bf16"))
        with pytest.raises(chipless.ChiplessError,
                           match=r"device tensor 'X' has shape \(100, 200\) but softmax expects"):
            program(X=device.empty((100, 200)))
        freed = device.empty((100, 300))
        freed.free()
        with pytest.raises(chipless.ChiplessError, match="a freed device tensor"):
            program(X=freed)
        with pytest.raises(chipless.ChiplessError, match="no device dtype of its own"):
            device.tensor(np.zeros(3, np.float64))
        with pytest.raises(chipless.ChiplessError, match="the host array has shape"):
            device.empty((4, 4)).write(np.zeros((2, 8), np.float32))
