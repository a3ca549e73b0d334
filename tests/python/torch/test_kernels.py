"""User kernels (chipless.torch.kernel): a tensor graph or KTIR kernel of one's own called on
device tensors — bound in place when it lays its arguments out as device tensors lie, through
the host otherwise — with symbolic dimensions read off the inputs and named errors."""
import pathlib

import pytest
import torch

import chipless.torch
from torch_checks import close

ROOT = pathlib.Path(__file__).resolve().parents[3]


def test_a_tensor_graph_as_a_tpu_function():
    softmax = chipless.torch.kernel(ROOT / "models" / "graphs" / "softmax.mlir", device="tpu")
    x = torch.randn(100, 300)
    close(softmax(x.to("tpu")), torch.softmax(x, -1), 1e-5, 1e-7)
    assert not softmax.through_host  # its arguments lie as device tensors do


def test_graph_text_as_a_kernel():
    text = """
func.func @scale(%x: tensor<8x256xf32> {graph.name = "x"})
    -> (tensor<8x256xf32> {graph.name = "y"}) {
  %e = tensor.empty() : tensor<8x256xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                        affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x256xf32>) outs(%e : tensor<8x256xf32>) {
    ^bb0(%a: f32, %o: f32):
      %c = arith.constant 3.0 : f32
      %m = arith.mulf %a, %c : f32
      linalg.yield %m : f32
  } -> tensor<8x256xf32>
  return %y : tensor<8x256xf32>
}
"""
    scale = chipless.torch.kernel(text=text, device="tpu:0")
    x = torch.randn(8, 256)
    close(scale(x=x.to("tpu")), x * 3, 0, 0)


def test_a_ktir_kernel_with_a_size_read_off_its_inputs_on_spyre():
    vadd = chipless.torch.kernel(ROOT / "models" / "kernels" / "vadd_dynamic.mlir",
                                 device="spyre")
    for n in (4096, 12288):
        a, b = torch.randn(n).half(), torch.randn(n).half()
        c = vadd(a.to("spyre"), b.to("spyre"))
        assert c.is_spyre and c.shape == (n,) and c.dtype == torch.float16
        assert torch.equal(c.cpu(), a + b)
    assert vadd.through_host  # a KTIR kernel reading row-major memory


def test_kernel_errors_name_the_argument():
    vadd = chipless.torch.kernel(ROOT / "models" / "kernels" / "vadd_dynamic.mlir",
                                 device="spyre")
    a = torch.zeros(4096, dtype=torch.float16)
    with pytest.raises(chipless.ChiplessError, match=r"takes 2 tensors \(A, B\); missing B"):
        vadd(a.to("spyre"))
    with pytest.raises(chipless.ChiplessError, match="'B' is torch.float32, the kernel takes"):
        vadd(a.to("spyre"), a.float().to("spyre"))
    with pytest.raises(chipless.ChiplessError, match="'A' must be a tensor on spyre:0"):
        vadd(a, a.to("spyre"))
    with pytest.raises(chipless.ChiplessError, match="error"):
        chipless.torch.kernel(text="func.func @broken(", device="tpu")
