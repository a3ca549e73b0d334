"""Bounded dynamic lengths (chipless.torch.compile(..., dynamic=...)): a length that changes
from call to call runs on its bucket's program — padded and masked, with the results of the
exact length — and compiles nothing new within a bucket; the padder's masks on the host
(the rewritten graph run on the CPU) and the refusals, each naming the op or the input."""
import copy
import pathlib
import sys

import pytest
import torch

import chipless.torch
from chipless.torch import dynamic
from torch_checks import close

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3] / "models" / "torch"))
import blocks  # noqa: E402

#: Where each block's inputs carry the sequence length.
LENGTH_DIMS = {"gpt2": {0: 1, 1: (0, 1)}, "bert": {0: 1},
               "llama": {0: 1, 1: 0, 2: 0, 3: (0, 1)}}


def padded_graph(model, inputs, spec, bucket):
    """The block's graph for `bucket`, masked by the padder, with its padder."""
    places = dynamic.parse_spec(spec, inputs)
    dims = {}
    for index, d in places:
        dims.setdefault(index, []).append(d)
    state = dict(model.named_parameters())
    state.update(model.named_buffers())
    traced = []
    for length in (bucket, dynamic.probe_length(bucket)):
        sized = [dynamic.resize(x, dims[i], length) if i in dims else x
                 for i, x in enumerate(inputs)]
        traced.append(dynamic.trace(model, state, sized))
    lengths = dynamic.length_dims(*traced, bucket, dynamic.probe_length(bucket))
    return traced[0], dynamic.Padder(traced[0], lengths), state, dims


@pytest.mark.parametrize("name", sorted(LENGTH_DIMS))
def test_the_masked_graph_of_a_bucket_gives_every_shorter_length_exactly_on_the_host(name):
    model, inputs = blocks.build(name, seq=20)
    model.eval()
    with torch.no_grad():
        gm, padder, state, dims = padded_graph(model, inputs, LENGTH_DIMS[name], 32)
        for n in (1, 7, 31, 32):
            _, exact = blocks.build(name, seq=n)
            want = model(*exact)
            padded = [dynamic.resize(x, dims[i], 32) if i in dims else x
                      for i, x in enumerate(exact)]
            got = gm(*state.values(), *padded,
                     *[dynamic.extra_value(e, n, 32, "cpu") for e in padder.extras])
            assert padder.outputs == [[1]]
            close(got.narrow(1, 0, n), want, 1e-5, 1e-5)
            if n <= 7:  # the masks matter: marking every position real changes the result
                unmasked = gm(*state.values(), *padded,
                              *[dynamic.extra_value(e, 32, 32, "cpu") for e in padder.extras])
                assert (unmasked.narrow(1, 0, n) - want).abs().max() > 1e-2


def test_the_padder_masks_reductions_and_contractions_over_the_length_only():
    model, inputs = blocks.build("bert", seq=8)
    gm, padder, _, _ = padded_graph(model, inputs, {0: 1}, 16)
    masked = [n for n in gm.graph.nodes if n.target == torch.ops.chipless_dyn.masked.default]
    users = sorted({str(next(iter(n.users)).target) for n in masked})
    # attention: softmax over the keys, and probabilities @ values contracted over them
    assert users == ["aten._softmax.default", "aten.bmm.default"]
    kinds = sorted((e[0], e[2]) for e in padder.extras)
    assert kinds == [("valid", (1, 1, 1, 16)), ("valid", (1, 1, 16)), ("valid", (1, 16, 64))]


def test_a_mean_over_the_length_is_rescaled_to_the_real_count():
    class Pool(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.project = torch.nn.Linear(8, 8)

        def forward(self, x):
            return self.project(x).mean(1), self.project(x).amax(1)
    pool = Pool()
    x = torch.randn(2, 16, 8)
    gm, padder, state, dims = padded_graph(pool, (x,), {0: 1}, 16)
    # one mask serves both reductions; the mean is scaled by bucket / n
    assert sorted(e[0] for e in padder.extras) == ["ratio", "valid"]
    with torch.no_grad():
        short = torch.randn(2, 5, 8)
        got = gm(*state.values(), dynamic.resize(short, [1], 16),
                 *[dynamic.extra_value(e, 5, 16, "cpu") for e in padder.extras])
        for g, w in zip(got, pool(short)):
            close(g, w, 1e-5, 1e-5)


class _Refused(torch.nn.Module):
    def __init__(self, how):
        super().__init__()
        self.how = how

    def forward(self, x):
        if self.how == "layer_norm":
            return torch.nn.functional.layer_norm(x.transpose(1, 2), [x.shape[1]])
        if self.how == "cat":
            return torch.cat([x, x], 1)
        if self.how == "last":
            return x[:, -1]
        if self.how == "flatten":
            return x.reshape(-1)
        return x.flip(1)


@pytest.mark.parametrize("how,message", [
    ("layer_norm", "aten.native_layer_norm.default (graph node 'native_layer_norm') "
                   "normalizes over dimension 2"),
    ("cat", "aten.cat.default (graph node 'cat') concatenates along dimension 1"),
    ("last", "aten.select.int (graph node 'select') counts from the end of dimension 1"),
    ("flip", "aten.flip.default (graph node 'flip') flips dimension 1"),
    ("flatten", "output '_reshape_alias' has a dimension (0) derived from the length")])
def test_an_op_that_padding_would_change_is_refused_naming_it(how, message):
    with pytest.raises(dynamic.DynamicError) as e:
        padded_graph(_Refused(how), (torch.randn(1, 4, 8),), {0: 1}, 8)
    assert message in str(e.value)


@pytest.mark.parametrize("device,dtype,tolerance", [("tpu", torch.float32, 1e-4),
                                                    ("spyre", torch.float16, 1e-2)])
def test_lengths_changing_from_call_to_call_reuse_their_buckets_programs(device, dtype,
                                                                         tolerance):
    model, inputs = blocks.build("gpt2", seq=12)
    model.eval()
    cpu = copy.deepcopy(model)
    chipless.torch.reset_stats()
    fast = chipless.torch.compile(model.to(dtype), tuple(x.to(dtype) for x in inputs),
                                  device=device, dynamic=LENGTH_DIMS["gpt2"], max_length=32)
    assert fast.counters["captures"] == 1  # the example's bucket, 16, ahead of time
    with torch.no_grad():
        for n in (12, 5, 16, 9, 7, 3, 14, 20, 32, 17):
            _, exact = blocks.build("gpt2", seq=n)
            got = fast(*[x.to(dtype).to(device) for x in exact])
            assert got.shape == (1, n, 768)
            want = cpu(*exact)
            error = ((got.cpu().float() - want).abs().max() / want.abs().max()).item()
            assert error < tolerance, f"length {n}"
            # the first calls may compile variants of the deferred graph's parts (which
            # results are written back depends on what is still held); then new lengths in
            # the bucket compile nothing
            if n == 9:
                compiled = chipless.torch.stats(device)["compiles"]
            if n == 14:
                assert chipless.torch.stats(device)["compiles"] == compiled
    assert fast.counters == {"captures": 2, "calls": 10, "calls_by_bucket": {16: 7, 32: 3}}
    assert len(fast.graphs) == 2


def test_a_length_outside_the_bounds_is_refused_before_anything_runs():
    model, inputs = blocks.build("bert", seq=8)
    model.eval()
    fast = chipless.torch.compile(model, inputs, device="tpu", dynamic={0: 1},
                                  buckets=[8, 16])
    launches = chipless.torch.stats("tpu")["launches"]
    with pytest.raises(dynamic.DynamicError, match=r"input 0 dimension 1 has length 17, "
                                                   r"outside the declared bounds 1\.\.16"):
        fast(torch.randn(1, 17, 768, device="tpu"))
    with pytest.raises(dynamic.DynamicError, match=r"input 0 has shape \[2, 8, 768\]; only "
                                                   r"the declared dimensions may differ"):
        fast(torch.randn(2, 8, 768, device="tpu"))
    assert chipless.torch.stats("tpu")["launches"] == launches


def test_declared_dimensions_must_share_one_length():
    model, inputs = blocks.build("gpt2", seq=8)
    fast = chipless.torch.compile(model.eval(), inputs, device="tpu",
                                  dynamic=LENGTH_DIMS["gpt2"], max_length=16)
    with pytest.raises(dynamic.DynamicError, match="input 1 dimension 0 has length 6, but "
                                                   "input 0 dimension 1 has 8"):
        fast(torch.randn(1, 8, 768, device="tpu"), blocks.causal_mask(6).to("tpu"))


@pytest.mark.parametrize("kwargs,message", [
    ({"dynamic": {3: 1}, "max_length": 8}, "input 3 does not exist (the model takes 1 inputs)"),
    ({"dynamic": {0: 5}, "max_length": 8}, "input 0 has 3 dimensions, no dimension 5"),
    ({"dynamic": {0: 1}}, "max_length must be a positive integer (got None)"),
    ({"dynamic": {0: 1}, "buckets": [16, 8]}, "buckets must be increasing positive integers"),
    ({"dynamic": {0: 1}, "max_length": 8, "backward": True}, "forward pass only")])
def test_bad_declarations_are_refused(kwargs, message):
    model, inputs = blocks.build("bert", seq=8)
    with pytest.raises(dynamic.DynamicError) as e:
        chipless.torch.compile(model, inputs, device="tpu", **kwargs)
    assert message in str(e.value)
