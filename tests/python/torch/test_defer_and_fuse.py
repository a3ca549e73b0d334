"""DeferAndFuse: ops recorded until their data is needed and run as one program — the same
results as eager, bit for bit, in fewer launches; the sync points that run what is recorded;
results nobody holds not written back; the environment switches TorchTPU users know."""
import os
import pathlib
import subprocess
import sys

import torch

import chipless.torch
from torch_checks import classifier_step_is_one_program, close

PYTHON_DIR = pathlib.Path(__file__).resolve().parents[3] / "python"


def chain(x):
    return (torch.tanh(x * 0.5 + 1.0) * x).sum(-1)


def test_a_block_runs_as_one_program_with_the_eager_results():
    x = torch.randn(16, 256)
    eager = chain(x.to("tpu")).cpu()
    eager_launches = chipless.torch.stats("tpu")["launches"]
    chipless.torch.reset_stats()
    with chipless.torch.defer_and_fuse():
        d = x.to("tpu")
        y = chain(d)
        assert chipless.torch.stats("tpu")["launches"] == 0  # recorded, not run
    s = chipless.torch.stats("tpu")
    assert s["launches"] == s["fused_launches"] == 1 and s["deferred_ops"] == eager_launches
    assert torch.equal(y.cpu(), eager)
    close(y, chain(x), 1e-5, 1e-4)


def test_reading_the_data_runs_what_is_recorded():
    x = torch.randn(8, 128)
    chipless.torch.set_defer_and_fuse(True)
    try:
        d = torch.exp(x.to("tpu")) + 1
        assert chipless.torch.stats("tpu")["launches"] == 0
        value = d[0, 0].item()           # .item() needs the data
        assert chipless.torch.stats("tpu")["launches"] == 1
        assert abs(value - (torch.exp(x[0, 0]) + 1).item()) < 1e-5
        e = d * 2
        assert "device='tpu:0'" in repr(e)  # so does printing
        assert chipless.torch.stats("tpu")["launches"] == 2
        f = e - 1
        if f.sum(-1)[0] > -1e9:          # and a branch on a value
            pass
        # the element [0] is a view the graph reads in place: e - 1, the sum and the
        # comparison run as one program when the branch reads it
        assert chipless.torch.stats("tpu")["launches"] == 3
    finally:
        chipless.torch.set_defer_and_fuse(False)


def test_only_results_someone_holds_are_written_back():
    x = torch.randn(64, 512).to("tpu")
    chipless.torch.reset_stats()
    with chipless.torch.defer_and_fuse():
        y = torch.exp(torch.tanh(torch.relu(x)))  # two intermediates nobody keeps
    s = chipless.torch.stats("tpu")
    assert s["fused_launches"] == 1 and s["written_back"] == 1 and s["kept_inside"] == 2
    close(y, torch.exp(torch.tanh(torch.relu(x.cpu()))), 1e-5, 1e-6)


def test_a_training_step_is_one_program_bit_identical_to_eager():
    def train(defer):
        torch.manual_seed(0)
        model = torch.nn.Sequential(torch.nn.Linear(64, 256), torch.nn.ReLU(),
                                    torch.nn.Linear(256, 10)).to("tpu")
        opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
        x, target = torch.randn(32, 64).to("tpu"), torch.randn(32, 10).to("tpu")
        chipless.torch.reset_stats()
        chipless.torch.set_defer_and_fuse(defer)
        try:
            for _ in range(3):
                loss = ((model(x) - target) ** 2).mean(-1).mean(-1)
                opt.zero_grad()
                loss.backward()
                opt.step()
            chipless.torch.synchronize()
        finally:
            chipless.torch.set_defer_and_fuse(False)
        return [p.detach().cpu() for p in model.parameters()], chipless.torch.stats("tpu")

    eager_params, eager_stats = train(False)
    fused_params, fused_stats = train(True)
    assert all(torch.equal(a, b) for a, b in zip(eager_params, fused_params))
    # forward, loss, backward and AdamW of all three steps: one program, since nothing reads
    # data in between (views are read in the graph, so none stops the recording)
    assert fused_stats["launches"] == fused_stats["fused_launches"] == 1, fused_stats
    assert fused_stats["relayouts"] == 0, fused_stats


def test_the_environment_turns_it_on(tmp_path):
    program = ("import chipless_autoload, torch, chipless.torch\n"
               "y = torch.exp(torch.ones(4, 128, device='tpu')) * 2\n"
               "print(chipless.torch.stats('tpu')['launches'], end=' ')\n"
               "y.cpu()\nprint(chipless.torch.stats('tpu')['launches'])\n")
    for switch in ("TORCH_TPU_DEFER_AND_FUSE", "TPU_DEFER_AND_FUSE", "CHIPLESS_DEFER_AND_FUSE"):
        done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                              env=dict(os.environ, PYTHONPATH=str(PYTHON_DIR),
                                       CHIPLESS_LOCK_DIR=str(tmp_path), **{switch: "1"}))
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == "0 1", (switch, done.stdout)


def test_a_result_also_read_through_a_reshape_of_its_last_dimension():
    """Spyre: a deferred result ([1, 32, 8, 128], whose rows the canonical layout pads over
    the DRAM channels) that the graph also reads as [1, 32, 1024] (its heads merged, which
    needs the rows unpadded) is written back in the canonical layout all the same."""
    x = torch.randn(1, 32, 8, 128, dtype=torch.float16)
    with torch.no_grad(), chipless.torch.defer_and_fuse():
        y = x.to("spyre") * 2
        z = y.reshape(1, 32, 1024).sum(-1)
    assert chipless.torch.stats("spyre")["fused_launches"] == 1
    close(y, x.float() * 2, 0, 0)
    close(z, (x.float() * 2).reshape(1, 32, 1024).sum(-1), 1e-2, 0.5)


def test_a_spyre_training_step_is_one_program():
    """An MLP's training step on Spyre in DeferAndFuse mode: forward, loss, backward and the
    optimizer as one program from the third step on (the first compiles, the second lays the
    weights out transposed again after the first update), matching eager steps."""
    def train(defer):
        torch.manual_seed(0)
        model = torch.nn.Sequential(torch.nn.Linear(64, 256), torch.nn.GELU(),
                                    torch.nn.Linear(256, 64)).half().to("spyre")
        # SGD with momentum: Adam's update in float16 divides by a square root that
        # underflows (its default eps is 0 in float16), so fused and unfused rounding would
        # move it far apart
        opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        x = torch.randn(32, 64).half().to("spyre")
        launches = []
        chipless.torch.set_defer_and_fuse(defer)
        try:
            for _ in range(4):
                chipless.torch.reset_stats()
                loss = (model(x) ** 2).mean(-1).mean(-1)
                opt.zero_grad()
                loss.backward()
                opt.step()
                loss.item()
                launches.append(chipless.torch.stats("spyre")["launches"])
        finally:
            chipless.torch.set_defer_and_fuse(False)
        assert chipless.torch.fallback_counts() == {}  # .item() is a read, not a CPU op
        return [p.detach().cpu().float() for p in model.parameters()], launches

    eager_params, _ = train(False)
    fused_params, launches = train(True)
    assert launches[2:] == [1, 1], launches
    for a, b in zip(eager_params, fused_params):
        close(b, a, 1e-2, 1e-2)


def test_an_operand_copied_first_leaves_the_others_read_where_they_now_lie():
    """An op whose operands are a reshape of a value the graph computes ([1, 32, 12, 64]
    merged to [1, 32, 768]) and a view the TPU must copy first (a transpose of another value
    the graph computes): the copy runs what is recorded, so the reshape is then read from
    where that program wrote its value (in its own, padded layout), not as a tensor laid out
    as [1, 32, 768] (GPT-2's backward concatenates dq, dk and dv so)."""
    a, c = torch.randn(1, 12, 32, 64), torch.randn(768, 32)

    def f(a, c):
        heads = (a * 2).transpose(1, 2).contiguous()  # [1, 32, 12, 64], rows of 64
        rows = (c + 1).t().unsqueeze(0)  # a transposed view of a value the graph computes
        return torch.cat([heads.reshape(1, 32, 768), rows, heads.reshape(1, 32, 768)], 2)
    with chipless.torch.defer_and_fuse():
        got = f(a.to("tpu"), c.to("tpu"))
    close(got, f(a, c), 0, 0)


def test_a_cnn_training_step_is_one_program_on_the_tpu():
    """Convolutions, batch norm, ReLU, a global average pool, a linear layer and
    cross-entropy, their gradients (the convolutions' too) and SGD with momentum: one
    program per step, nothing on the CPU, bit for bit the eager steps, close to the CPU's."""
    classifier_step_is_one_program(
        lambda: torch.nn.Sequential(
            torch.nn.Conv2d(3, 8, 3, padding=1, bias=False), torch.nn.BatchNorm2d(8),
            torch.nn.ReLU(), torch.nn.Conv2d(8, 8, 3, padding=1), torch.nn.ReLU(),
            torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(8, 10)),
        lambda parameters: torch.optim.SGD(parameters, lr=0.1, momentum=0.9),
        lambda: (torch.randn(4, 3, 16, 16), torch.randint(0, 10, (4,))))
