"""Sweep expansion: lists, ranges, products and zips, and the located errors of bad sweeps."""
import pytest

from chipless.errors import ChiplessError
from chipless.located_yaml import load_located
from chipless.study.sweep import expand


def sweep_of(tmp_path, text):
    f = tmp_path / "s.yaml"
    f.write_text(text)
    return str(f), load_located(f)["sweep"]


def test_a_mapping_is_the_product_of_its_keys_in_order(tmp_path):
    f, node = sweep_of(tmp_path, "sweep:\n  a: [1, 2]\n  b: [x, y, z]\n")
    points = expand(f, node)
    assert points == [{"a": 1, "b": "x"}, {"a": 1, "b": "y"}, {"a": 1, "b": "z"},
                      {"a": 2, "b": "x"}, {"a": 2, "b": "y"}, {"a": 2, "b": "z"}]


def test_ranges_arithmetic_geometric_and_single_values(tmp_path):
    f, node = sweep_of(tmp_path, "sweep:\n  a: {from: 4, to: 32, factor: 2}\n"
                                 "  b: {from: 0.5, to: 1.5, step: 0.5}\n  c: 7\n")
    points = expand(f, node)
    assert sorted({p["a"] for p in points}) == [4, 8, 16, 32]
    assert all(isinstance(p["a"], int) for p in points)
    assert sorted({p["b"] for p in points}) == [0.5, 1.0, 1.5]
    assert {p["c"] for p in points} == {7}
    assert len(points) == 12
    f, node = sweep_of(tmp_path, "sweep:\n  a: {from: 64, to: 8, factor: 0.5}\n"
                                 "  b: {from: 10, to: 0, step: -5}\n")
    assert [p["a"] for p in expand(f, node)][::3] == [64.0, 32.0, 16.0, 8.0]
    assert [p["b"] for p in expand(f, node)][:3] == [10, 5, 0]


def test_product_and_zip_nest(tmp_path):
    f, node = sweep_of(tmp_path, """sweep:
  product:
    - zip:
        - cores: [8, 16, 32]
        - sp: [1, 2, 4]
    - bw: [100, 200]
""")
    points = expand(f, node)
    assert len(points) == 6
    assert points[0] == {"cores": 8, "sp": 1, "bw": 100}
    assert points[-1] == {"cores": 32, "sp": 4, "bw": 200}
    assert {(p["cores"], p["sp"]) for p in points} == {(8, 1), (16, 2), (32, 4)}


def test_no_sweep_is_one_point(tmp_path):
    assert expand("f", None) == [{}]


@pytest.mark.parametrize("text,message", [
    ("sweep:\n  zip:\n    - a: [1, 2]\n    - b: [1, 2, 3]\n", ":3: sweep.zip: the zipped sweeps "
     "have 2 vs 3 points"),
    ("sweep:\n  product:\n    - a: [1]\n    - a: [2]\n", ":4: parameter a is swept twice"),
    ("sweep:\n  a: {from: 1, to: 9}\n", ":2: sweep.a: a range is {from: A, to: B, step: S}"),
    ("sweep:\n  a: {from: 1, to: 9, step: -1}\n", "sweep.a.step: -1 never goes from 1 to 9"),
    ("sweep:\n  a: {from: 1, to: 9, factor: 1}\n", "sweep.a.factor: 1 never goes"),
    ("sweep:\n  a: []\n", ":2: sweep.a: an empty list"),
    ("sweep:\n  a: [1, [2]]\n", "sweep.a[1]: expected a number, word or true/false"),
    ("sweep:\n  a: {from: x, to: 9, step: 1}\n", "sweep.a.from: expected a number"),
    ("sweep:\n  zip: []\n  b: [1]\n", "product: or zip: stands alone"),
])
def test_bad_sweeps_name_the_line_and_field(tmp_path, text, message):
    f, node = sweep_of(tmp_path, text)
    with pytest.raises(ChiplessError) as e:
        expand(f, node)
    assert message in str(e.value)
    assert str(e.value).startswith(f)
