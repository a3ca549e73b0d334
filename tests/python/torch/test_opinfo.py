"""PyTorch's own OpInfo samples on the emulated devices (scripts/opinfo_report.py, which
writes docs/ops.md from every OpInfo): a few ops that must run wholly on the TPU, checked
against the CPU with the report's tolerances, and one that has no lowering."""
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "scripts"))
import opinfo_report  # noqa: E402

#: OpInfos whose every sample (the first 4, as in docs/ops.md) runs as device programs on the
#: TPU and matches the CPU within rtol 1e-4, atol 1e-5 (matmuls: 2e-3, 1e-3).
ON_TPU = ("neg", "abs", "tanh", "sqrt", "nn.functional.relu", "nn.functional.gelu", "mm",
          "bmm", "addmm.decomposed")


@pytest.fixture(scope="module")
def op_db():
    return {opinfo_report.op_name(op): op for op in opinfo_report.load_op_db()}


def run(op_db, name, kind="tpu"):
    return opinfo_report.run_op(op_db[name], kind, samples=4, timeout=60)


@pytest.mark.parametrize("name", ON_TPU)
def test_lowered_op_runs_on_the_tpu(op_db, name):
    r = run(op_db, name)
    assert r["dtype"] == "float32"
    assert r["class"] == "on device", r
    assert r["samples"] >= 1 and r["launches"] >= r["samples"] and not r["cpu_ops"], r


def test_op_without_lowering_is_a_cpu_fallback(op_db):
    r = run(op_db, "cumsum")
    assert r["class"] == "CPU fallback", r
    assert any("cumsum" in op for op in r["cpu_ops"]), r


def test_broadcast_along_the_last_dimension_runs_partly_on_the_cpu(op_db):
    """add's [5, 1] + [5] sample is refused by the TPU compiler (docs/pytorch.md): that
    sample runs on the CPU, the others on the device, all matching."""
    r = run(op_db, "add")
    assert r["class"] in ("on device", "partly on device"), r


def test_classes_of_a_mismatch_and_an_error():
    """The classification itself: a wrong number is a mismatch naming the element, an
    exception is an error with its first line."""
    import torch
    ok = {"status": "ok", "cpu_ops": {}, "launches": 1, "reason": "", "note": "", "score": 0}
    bad = dict(ok, status="mismatch", reason="result: max |diff| 1", score=5.0)
    err = dict(ok, status="error", reason="RuntimeError: boom")
    assert opinfo_report.classify({"cpu_ops": {}}, [ok, bad, err])["class"] == "mismatch"
    assert opinfo_report.classify({"cpu_ops": {}}, [ok, err])["reason"] == "RuntimeError: boom"
    assert opinfo_report.classify({"cpu_ops": {}},
                                  [ok, dict(ok, cpu_ops={"aten::cumsum.out": 1})]
                                  )["class"] == "partly on device"
    with pytest.raises(opinfo_report.Mismatch, match="NaN"):
        opinfo_report.compare(torch.tensor([1.0, float("nan")]).to("tpu"),
                              torch.tensor([1.0, 2.0]), 1e-4, 1e-5)


def test_zero_size_elementwise_on_the_tpu():
    """exp's samples include a [1, 0, 3] tensor, which once crashed the TPU compiler (a
    division by a zero size); in a worker process, so a regression ends that process, not
    the test session."""
    results = opinfo_report.run_isolated(["exp"], ["tpu"], samples=4, timeout=60)
    assert results[0]["class"] == "on device", results[0]
