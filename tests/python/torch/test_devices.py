"""The `spyre` and `tpu` devices as PyTorch code names them, and tensors moving between the
host and the emulated device memory: every dtype kept exactly, views and in-place writes,
several devices, the modelled host-link time, and the errors that name what is wrong."""
import pytest
import torch

import chipless.torch


def test_the_names_users_write_reach_the_emulated_devices():
    tpu = torch.device("tpu")
    assert tpu == torch.device("tpu:0") == chipless.torch.device("tpu")
    assert tpu.type == "privateuseone" and isinstance(tpu, torch.device)
    x = torch.randn(3, 5, device="tpu")
    assert x.device == tpu and x.is_tpu and not x.is_spyre
    s = torch.zeros(4, 8, device="spyre:0", dtype=torch.float16)
    assert s.is_spyre and not s.is_tpu and s.device != tpu
    assert torch.device("spyre", 0) == s.device
    assert torch.arange(6, device=torch.device("tpu")).cpu().tolist() == list(range(6))
    cpu = torch.randn(2, 3)
    assert torch.equal(cpu.to("tpu").cpu(), cpu)
    assert torch.equal(cpu.to(device="tpu:0").to("cpu"), cpu)
    assert not cpu.is_tpu and not cpu.is_spyre


def test_device_tensors_print_like_cpu_tensors_with_their_device():
    x = torch.tensor([[1.5, -2.0], [0.25, 4.0]])
    d = x.to("tpu")
    assert repr(d) == repr(x)[:-1] + ", device='tpu:0')"
    w = torch.ones(3, device="spyre", dtype=torch.float16, requires_grad=True)
    assert repr(w) == "tensor([1., 1., 1.], dtype=torch.float16, device='spyre:0', " \
                      "requires_grad=True)"
    assert "grad_fn=<MulBackward0>" in repr(w * 2)


def test_several_devices_of_one_kind():
    x = torch.randn(4, 130)
    a = x.to("tpu:0")
    b = a.to("tpu:1")
    assert b.device != a.device and b.is_tpu
    assert torch.equal(b.cpu(), x)
    assert chipless.torch.stats("tpu:1")["device"] == "tpu:1"


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.int64, torch.int32,
                                   torch.int16, torch.int8, torch.uint8, torch.bool])
def test_every_dtype_comes_back_exactly_from_the_tpu(dtype):
    x = (torch.randn(7, 300) * 50).to(dtype)
    d = x.to("tpu")
    assert d.dtype == dtype
    assert torch.equal(d.cpu(), x)


@pytest.mark.parametrize("dtype", [torch.float16, torch.float32, torch.bfloat16])
def test_spyre_tensors_in_sticks_come_back_exactly(dtype):
    x = torch.randn(5, 1000, 70).to(dtype)  # 70 is not a whole stick
    assert torch.equal(x.to("spyre").cpu(), x)


def test_views_and_writes_through_them():
    x = torch.arange(24.0).reshape(4, 6)
    d = x.to("tpu")
    assert torch.equal(d.t().cpu(), x.t())
    assert torch.equal(d[1:3, ::2].cpu(), x[1:3, ::2])
    assert torch.equal(d.reshape(3, 8).cpu(), x.reshape(3, 8))
    d[2] = torch.tensor([9.0] * 6)
    x[2] = 9.0
    assert torch.equal(d.cpu(), x)
    d.t()[0].copy_(torch.tensor([-1.0, -2.0, -3.0, -4.0]))
    x.t()[0] = torch.tensor([-1.0, -2.0, -3.0, -4.0])
    assert torch.equal(d.cpu(), x)


def test_module_to_moves_parameters_and_buffers():
    model = torch.nn.Sequential(torch.nn.Linear(8, 4), torch.nn.BatchNorm1d(4))
    before = {k: v.clone() for k, v in model.state_dict().items()}
    model.to("tpu")
    for name, value in model.state_dict().items():
        assert value.is_tpu, name
        assert torch.equal(value.cpu(), before[name]), name
    assert isinstance(model[0].weight, torch.nn.Parameter)


def test_host_copies_take_the_modelled_link_time():
    params = chipless.arch("v5e")["params"]
    latency = params["host.link_latency_us"]["value"] * 1e-6
    per_byte = 1 / (params["host.link_gb_s"]["value"] * 1e9)
    torch.ones(64, 256).to("tpu")
    s = chipless.torch.stats("tpu")
    assert s["link_bytes_in"] == 64 * 256 * 4
    assert s["link_seconds"] == pytest.approx(latency + 64 * 256 * 4 * per_byte)


def test_errors_name_what_is_wrong():
    with pytest.raises(RuntimeError, match="tpu:0 has no Double tensors"):
        torch.zeros(3, dtype=torch.float64).to("tpu")
    with pytest.raises(RuntimeError, match="does not fit"):
        torch.tensor([2**40]).to("tpu")
    with pytest.raises(RuntimeError, match="privateuseone:7 is no emulated device"):
        torch.zeros(2, device="privateuseone:7")
    with pytest.raises(chipless.ChiplessError, match="unknown device kind 'gpu'"):
        chipless.torch.configure("gpu")
