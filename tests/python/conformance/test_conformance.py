"""`chipless conformance`: cases against their fp32 references on the emulated chips, the
physical bounds, reruns byte for byte, JUnit XML a standard parser reads, located errors
in suite files, filters and what-if chips."""
import json
import xml.etree.ElementTree as ET

import junitparser
import pytest

from chipless.conformance.bounds import check_bounds
from conftest import ROOT, chipless

SUITE = """
suite: mini
references: refs.py
chips: [spyre]
cases:
  - name: add
    workload: {ROOT}/models/kernels/add.s
    reference: add
    scalars: {N: 4096}
    tolerance: {rtol: 0.001, atol: 0.001}
  - name: softmax
    workload: {ROOT}/models/graphs/softmax.mlir
    reference: softmax
    chips: [spyre, v5e]
    tolerance: {rtol: 0.03, atol: 0.0001}
"""

REFS = """
import numpy as np

def add(i, s):
    return {"C": i["A"] + i["B"]}

def softmax(i, s):
    x = i["X"].astype(np.float64)
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return {"Y": (e / e.sum(axis=-1, keepdims=True)).astype(np.float32)}

def add_wrong(i, s):
    return {"C": i["A"] - i["B"]}
"""


def write_suite(tmp_path, text=SUITE, refs=REFS):
    (tmp_path / "refs.py").write_text(refs)
    path = tmp_path / "mini.yaml"
    path.write_text(text.replace("{ROOT}", str(ROOT)))
    return path


def test_cases_pass_and_the_junit_file_reads_with_a_standard_parser(tmp_path):
    suite = write_suite(tmp_path)
    junit = tmp_path / "junit.xml"
    r = chipless("conformance", suite, "--junit", junit, "-o", tmp_path / "work")
    assert "conformance: 3 checks, 0 failed, 0 skipped" in r.stdout
    xml = junitparser.JUnitXml.fromfile(str(junit))
    suites = list(xml)
    assert [s.name for s in suites] == ["mini"]
    cases = list(suites[0])
    assert [c.name for c in cases] == ["add[spyre]", "softmax[spyre]", "softmax[v5e]"]
    assert all(c.is_passed for c in cases)
    assert suites[0].tests == 3 and suites[0].failures == 0
    # properties: cycles, the worst errors, each bound
    root = ET.parse(junit).getroot()
    for case in root.iter("testcase"):
        props = {p.get("name"): p.get("value") for p in case.iter("property")}
        assert float(props["cycles"]) > 0
        assert float(props["worst_rel_error"]) < 0.03
        assert any(k.startswith("bound.") for k in props)
    # the summary names each check
    summary = (tmp_path / "work" / "summary.md").read_text()
    assert "| mini | softmax | v5e | pass |" in summary


def test_a_wrong_result_fails_with_the_element_and_the_exit_status(tmp_path):
    suite = write_suite(tmp_path, SUITE.replace("reference: add\n", "reference: add_wrong\n"))
    junit = tmp_path / "junit.xml"
    r = chipless("conformance", suite, "--junit", junit, "-o", tmp_path / "work", check=False)
    assert r.returncode == 1
    assert "conformance: 3 checks, 1 failed" in r.stdout
    assert "FAIL mini/add[spyre]" in r.stderr
    assert "C differs from the fp32 reference beyond rtol 0.001 atol 0.001 at [" in r.stderr
    xml = junitparser.JUnitXml.fromfile(str(junit))
    failed = [c for s in xml for c in s if not c.is_passed]
    assert [c.name for c in failed] == ["add[spyre]"]
    assert "differs from the fp32 reference" in failed[0].result[0].message


def test_filter_and_a_what_if_chip(tmp_path):
    suite = write_suite(tmp_path)
    r = chipless("conformance", suite, "--filter", "*softmax*", "-o", tmp_path / "a", "--list")
    assert r.stdout.split() == ["mini/softmax[spyre]", "mini/softmax[v5e]"]
    base = chipless("conformance", suite, "--filter", "add", "-o", tmp_path / "a")
    slow = chipless("conformance", suite, "--filter", "add", "-o", tmp_path / "b",
                    "--set", "dram.bandwidth_gb_s=50")
    cycles = [float(line.split("|")[5].replace(",", "")) for out in (base, slow)
              for line in out.stdout.splitlines() if line.startswith("| mini | add")]
    assert cycles[1] > 2 * cycles[0], cycles
    # --arch replaces every chip of its kind: both softmax checks of the TPU kind run on v6e
    r = chipless("conformance", suite, "--arch", "v6e", "--list", "-o", tmp_path / "c")
    assert r.stdout.split() == ["mini/add[spyre]", "mini/softmax[spyre]", "mini/softmax[v6e]"]
    r = chipless("conformance", suite, "--set", "dram.bandwith_gb_s=50", check=False)
    assert r.returncode == 1 and "--set dram.bandwith_gb_s=50: not a parameter" in r.stderr


ADD = "suite: x\ncases:\n  - name: a\n    workload: {ROOT}/models/kernels/add.s\n"


@pytest.mark.parametrize("text,message", [
    ("suite: x\ncases:\n  - name: a\n", "mini.yaml:3: cases[0]: missing workload:"),
    ("suite: x\ncases:\n  - {name: a, workload: nothing.s}\n", "workload nothing.s: no such file"),
    ("references: refs.py\n" + ADD + "    reference: nope\n",
     "mini.yaml:6: a: refs.py has no function 'nope'"),
    (ADD + "    chips: [v9]\n", "mini.yaml:5: a: chip 'v9' is not one of"),
    (ADD + "    tolerence: {}\n", "mini.yaml:5: cases[0]: unknown key 'tolerence'"),
    ("suite: x\ncases: [\n", "mini.yaml:3: YAML syntax error"),
])
def test_bad_suite_files_are_located_errors(tmp_path, text, message):
    r = chipless("conformance", write_suite(tmp_path, text), "-o", tmp_path / "w", check=False)
    assert r.returncode == 1
    assert message in r.stderr, r.stderr


def test_an_optional_suite_skips_missing_workloads(tmp_path):
    text = "suite: x\noptional: true\ncases:\n  - {name: a, workload: ../nowhere/k.mlir}\n"
    junit = tmp_path / "j.xml"
    r = chipless("conformance", write_suite(tmp_path, text), "--junit", junit, "-o", tmp_path)
    assert "0 checks, 0 failed, 1 skipped" in r.stdout
    case = next(iter(next(iter(junitparser.JUnitXml.fromfile(str(junit))))))
    assert case.is_skipped


def test_a_run_faster_than_the_dram_bound_is_caught():
    arch = {"dram.bandwidth_gb_s": 100.0, "chip.clock_ghz": 1.0, "chip.cores": 32,
            "chip.corelets_per_core": 2, "pt.rows": 8, "pt.cols": 8, "pt.macs_per_pe_fp16": 4,
            "pt.macs_per_pe_int8": 16, "ring.bytes_per_cycle": 128}
    stats = {"chip": {"cycles": {"value": 1000}, "dram": {"bytes": {"value": 200000}},
                      "core": [{"compute0": {"pt_macs": {"value": 2048 * 1000}}}],
                      "ring": {"link": [{"cw": {"bytes": {"value": 128 * 999}}}]}}}
    bounds = {name: (bound, holds) for name, bound, _, holds in check_bounds(stats, arch, False)}
    assert bounds["dram"] == (2000.0, False)      # 200 kB at 100 B/cycle needs 2000 cycles
    assert bounds["pt"][1] and bounds["ring link"][1]
    stats["chip"]["core"][0]["compute0"]["pt_macs"]["value"] = 32 * 2 * 64 * 16 * 1001
    assert not dict((n, h) for n, _, _, h in check_bounds(stats, arch, False))["pt"]


def test_the_bundled_suites_cover_both_chips_and_every_kind_of_workload():
    from chipless.conformance.suite import load_suite
    suites = [load_suite(p) for p in sorted((ROOT / "scenarios" / "conformance").glob("*.yaml"))]
    cases = [c for s in suites for c in s.cases]
    chips = {chip for c in cases for chip in c.chips}
    assert {"spyre", "v5e"} <= chips
    assert {c.kind for c in cases} == {"mlir", "asm"}
    assert all(c.reference_name for c in cases), "every bundled case has a reference"
    assert len(cases) >= 20
