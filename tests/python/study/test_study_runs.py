"""`chipless study` end to end on the emulated chips: recompilation only when a planned
parameter changes (counted; a tensor graph plans with every parameter), the caches and
resuming, failing points, the table, plots and report, and determinism."""
import json
import os
import signal
import subprocess
import sys
import time

import pandas
import pytest

from conftest import PYTHON_DIR, chipless

SPYRE_STUDY = """
study: layernorm-memory
description: Layer normalisation against DRAM bandwidth and core count.
chip: spyre
workloads:
  layernorm: {ROOT}/models/graphs/layernorm.mlir
sweep:
  chip.cores: [16, 32]
  dram.bandwidth_gb_s: [50, 100, 400]
metrics:
  cycles: chip.cycles
  time_us: chip.time_us
  dram_bytes: chip.dram.bytes
  dram_util: chip.utilization.dram
  sfu_busy: {path: "chip.core[*].compute0.sfu_busy_cycles", reduce: max}
  gb_per_s: {expr: "dram_bytes / (time_us * 1e3)", unit: GB/s}
  bound: {expr: "arch('dram.bandwidth_gb_s')"}
best: {metric: cycles, goal: min}
plots:
  - {kind: line, x: dram.bandwidth_gb_s, y: cycles, series: chip.cores, log: x}
  - {kind: heatmap, x: dram.bandwidth_gb_s, y: chip.cores, value: time_us}
"""


def finished(out):
    """The points whose run completed (a scratch folder .tmp-* may hold a result.json for
    the instant before it is renamed into place)."""
    return [p for p in (out / "points").glob("*/result.json")
            if not p.parent.name.startswith(".")]


def summary(out):
    return json.loads((out / "study.json").read_text())["counts"]


def test_a_graph_is_planned_for_every_point_and_every_point_runs(study_file, tmp_path):
    out = tmp_path / "out"
    chipless("study", study_file(SPYRE_STUDY), "-o", out, "-j", "2", "-q")
    counts = summary(out)
    # the front end's cost model reads the bandwidth too: six points, six programs
    assert counts["points"] == 6 and counts["programs"] == 6 and counts["compiled"] == 6
    assert counts["ran"] == 6 and counts["failed"] == 0
    table = pandas.read_csv(out / "results.csv")
    assert list(table.columns[:5]) == ["point", "workload", "chip", "chip.cores",
                                       "dram.bandwidth_gb_s"]
    assert len(table) == 6 and set(table["status"]) == {"ok"}
    # timing emerges from the model: less bandwidth, more cycles; the achieved bandwidth
    # never beats the configured one
    for cores in (16, 32):
        rows = table[table["chip.cores"] == cores].sort_values("dram.bandwidth_gb_s")
        assert list(rows["cycles"]) == sorted(rows["cycles"], reverse=True)
        assert rows["cycles"].iloc[0] > rows["cycles"].iloc[-1]
    assert (table["gb_per_s"] <= table["bound"] * 1.0001).all()
    assert (table["dram_bytes"] > 0).all()
    # every point keeps the architecture it ran on
    for _, row in table.iterrows():
        resolved = (out / row["resolved_arch"]).read_text()
        assert f"cores: {row['chip.cores']}" in resolved
        assert f"bandwidth_gb_s: {float(row['dram.bandwidth_gb_s'])}" in resolved
    # the programs' records say what they were compiled for: each point's values
    programs = [p.read_text() for p in (out / "programs").glob("*/program/arch.yaml")]
    assert len(programs) == 6
    for _, row in table.iterrows():
        assert sum(f"cores: {row['chip.cores']}" in p and
                   f"bandwidth_gb_s: {float(row['dram.bandwidth_gb_s'])}" in p
                   for p in programs) == 1
    # plots, report
    for stem in ("00-line", "01-heatmap"):
        assert (out / "plots" / f"{stem}.png").stat().st_size > 1000
        assert (out / "plots" / f"{stem}.svg").read_text().lstrip().startswith("<?xml")
    md = (out / "report.md").read_text()
    best = table.loc[table["cycles"].idxmin()]
    assert f"point {best['point']}: layernorm" in md and "plots/00-line.png" in md
    html = (out / "report.html").read_text()
    assert html.count("<svg") == 2 and "<table>" in html and "src=" not in html


def test_rerun_uses_the_caches_and_new_points_run_alone(study_file, tmp_path):
    out = tmp_path / "out"
    chipless("study", study_file(SPYRE_STUDY), "-o", out, "-q")
    first = (out / "results.csv").read_text()
    chipless("study", study_file(SPYRE_STUDY), "-o", out, "-q")
    counts = summary(out)
    assert counts["compiled"] == 0 and counts["compiles_cached"] == 6
    assert counts["ran"] == 0 and counts["runs_cached"] == 6
    assert (out / "results.csv").read_text() == first
    # one more bandwidth: two new points, each planned for it
    wider = SPYRE_STUDY.replace("[50, 100, 400]", "[50, 100, 200, 400]")
    chipless("study", study_file(wider), "-o", out, "-q")
    counts = summary(out)
    assert counts["points"] == 8 and counts["ran"] == 2 and counts["compiled"] == 2
    # one more core count: four new points
    more = wider.replace("[16, 32]", "[8, 16, 32]")
    chipless("study", study_file(more), "-o", out, "-q")
    counts = summary(out)
    assert counts["compiled"] == 4 and counts["ran"] == 4


KTIR_STUDY = """
study: ktir-memory
chip: spyre
workloads:
  layernorm: {ROOT}/models/kernels/layernorm.mlir
sweep:
  scratchpad.bytes: [1048576, 2097152]
  dram.bandwidth_gb_s: [50, 400]
metrics:
  cycles: chip.cycles
"""


def test_a_kernel_compiles_once_per_planned_value_and_reruns_for_timing(study_file, tmp_path):
    """A KTIR kernel carries its own division: only planned parameters recompile it, and the
    bandwidths rerun the same program."""
    out = tmp_path / "out"
    chipless("study", study_file(KTIR_STUDY), "-o", out, "-q")
    counts = summary(out)
    assert counts["points"] == 4 and counts["programs"] == 2 and counts["compiled"] == 2
    assert counts["ran"] == 4 and counts["failed"] == 0
    table = pandas.read_csv(out / "results.csv")
    for size in (1048576, 2097152):
        rows = table[table["scratchpad.bytes"] == size].sort_values("dram.bandwidth_gb_s")
        assert rows["cycles"].iloc[0] > rows["cycles"].iloc[1]
    programs = [p.read_text() for p in (out / "programs").glob("*/program/arch.yaml")]
    assert len(programs) == 2 and all("bandwidth_gb_s: 204.8" in p for p in programs)


def test_an_interrupted_study_resumes_where_it_stopped(study_file, tmp_path):
    study = study_file(SPYRE_STUDY.replace("[50, 100, 400]", "[25, 50, 100, 200, 400, 800]"))
    reference = tmp_path / "reference"
    chipless("study", study, "-o", reference, "-q", "-j", "1")
    out = tmp_path / "out"
    proc = subprocess.Popen([sys.executable, "-m", "chipless.cli", "study", str(study), "-o",
                             str(out), "-j", "1", "-q"],
                            env=dict(os.environ, PYTHONPATH=str(PYTHON_DIR)),
                            start_new_session=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        done = finished(out) if (out / "points").exists() else []
        if len(done) >= 3:
            break
        time.sleep(0.01)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    kept = len(finished(out))
    assert 3 <= kept < 12, "the study finished before it could be interrupted"
    assert not (out / "results.csv").exists()
    chipless("study", study, "-o", out, "-q", "-j", "1")
    counts = summary(out)
    assert counts["runs_cached"] == kept and counts["ran"] == 12 - kept
    # the scratch folder of the point that was running when killed is gone
    assert not list((out / "points").glob(".tmp-*"))
    assert (out / "results.csv").read_text() == (reference / "results.csv").read_text()


def test_a_failing_point_is_recorded_and_the_study_goes_on(study_file, tmp_path):
    # 8 KiB of scratchpad cannot hold the 64 KiB reserve: that program does not compile;
    # 0.001 GB/s is below the range of dram.bandwidth_gb_s: that run of the KTIR kernel (a
    # program that only planned parameters recompile) is refused
    text = SPYRE_STUDY.replace("chip.cores: [16, 32]", "scratchpad.bytes: [8192, 2097152]") \
        .replace("models/graphs/layernorm.mlir", "models/kernels/layernorm.mlir") \
        .replace("[50, 100, 400]", "[0.001, 100]").replace("chip.cores,", "scratchpad.bytes,") \
        .replace("y: chip.cores", "y: scratchpad.bytes")
    out = tmp_path / "out"
    r = chipless("study", study_file(text), "-o", out, "-q")
    assert "4 points, 3 failed" in r.stdout
    table = pandas.read_csv(out / "results.csv", keep_default_na=False)
    assert list(table["status"]) == ["failed", "failed", "failed", "ok"]
    assert table["error"][0].startswith("compile: spyre-compile: error: ")
    assert "scratchpad.reserved_bytes (65536) must be less than scratchpad.bytes (8192)" in \
        table["error"][0]
    assert table["error"][1] == table["error"][0]
    assert "--set dram.bandwidth_gb_s=0.001: dram.bandwidth_gb_s: 0.001 is out of range" in \
        table["error"][2]
    assert list(table["cycles"][:3]) == ["", "", ""] and float(table["cycles"][3]) > 0
    counts = summary(out)
    assert counts["failed"] == 3 and counts["compile_failures"] == 1
    # a failure is kept like a result: the rerun does not repeat it, --retry-failed does
    chipless("study", study_file(text), "-o", out, "-q")
    assert summary(out)["ran"] == 0 and summary(out)["compiled"] == 0
    chipless("study", study_file(text), "-o", out, "-q", "--retry-failed")
    assert summary(out)["compiled"] == 1 and summary(out)["ran"] == 1
    report = (out / "report.md").read_text()
    assert "3 failed" in report and "Best layernorm (min cycles): point 3: layernorm" in report


def test_a_run_past_max_cycles_is_a_failing_point_with_the_engine_report(study_file, tmp_path):
    text = SPYRE_STUDY.split("plots:")[0] + "run: {max_cycles: 2000}\n"
    out = tmp_path / "out"
    chipless("study", study_file(text), "-o", out, "-q")
    table = pandas.read_csv(out / "results.csv", keep_default_na=False)
    assert set(table["status"]) == {"failed"}
    assert all("--max-cycles" in e and "pc" in e for e in table["error"]), table["error"][0]
    assert "No point ran successfully." in (out / "report.md").read_text()


def test_two_runs_give_byte_identical_tables_and_plots(study_file, tmp_path):
    study = study_file(SPYRE_STUDY)
    chipless("study", study, "-o", tmp_path / "a", "-q", "-j", "1")
    chipless("study", study, "-o", tmp_path / "b", "-q", "-j", "2")
    for name in ("results.csv", "report.md", "plots/00-line.svg", "plots/01-heatmap.png"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name


def test_tpu_generations_as_a_swept_chip(study_file, tmp_path):
    text = """
study: tpu-gemm
workloads:
  gemm: {ROOT}/models/graphs/gemm_200x300x260.mlir
chip: v5e
sweep:
  chip: [v4, v5e, v6e]
metrics:
  cycles: cycles
  time_us: time_us
  flops: mxu_flops
  tflops: {expr: "flops / time_us / 1e6"}
plots:
  - {kind: bar, x: chip, y: tflops}
"""
    out = tmp_path / "out"
    chipless("study", study_file(text), "-o", out, "-q")
    table = pandas.read_csv(out / "results.csv")
    assert list(table["chip"]) == ["v4", "v5e", "v6e"]
    assert summary(out)["programs"] == 3
    assert len(set(table["time_us"])) == 3
    assert (out / "plots" / "00-bar.svg").exists()


@pytest.mark.parametrize("text,message", [
    ("workloads: {a: x.mlir}\nmetrics: {c: chip.cycles}\nsweeps: {}\n",
     "s.yaml:3: unknown key 'sweeps' (did you mean 'sweep'?)"),
    ("workloads: {a: nothing.mlir}\nmetrics: {c: chip.cycles}\n",
     "s.yaml:1: workloads.a: nothing.mlir: no such file"),
    ("workloads: {a: {ROOT}/models/graphs/layernorm.mlir}\nmetrics: {c: chip.cycles}\n"
     "sweep:\n  dram.bandwith_gb_s: [1]\n",
     "s.yaml:4: dram.bandwith_gb_s: not a parameter of spyre (did you mean "
     "dram.bandwidth_gb_s?)"),
    ("workloads: {a: {ROOT}/models/graphs/layernorm.mlir}\nmetrics:\n  c: chip.cycles\n"
     "  d: {expr: \"__import__('os')\"}\n", "s.yaml:4: metrics.d: expr: only numbers"),
    ("workloads: {a: {ROOT}/models/graphs/layernorm.mlir}\nmetrics:\n  c: {expr: \"x * 2\"}\n",
     "s.yaml:3: metrics.c: expr: 'x' is not an earlier metric"),
    ("workloads: {a: {ROOT}/models/graphs/layernorm.mlir}\nmetrics:\n"
     "  c: \"chip.core[*].dma_in.bytes\"\n", "names many statistics; say how to combine"),
    ("workloads: {a: {ROOT}/models/graphs/layernorm.mlir}\nmetrics: {c: chip.cycles}\n"
     "plots:\n  - {kind: line, x: chip.cores, y: cycles}\n",
     "s.yaml:4: plots[0].x: 'chip.cores' is not one of workload"),
    ("workloads: {a: {ROOT}/models/graphs/layernorm.mlir}\nchip: v9\nmetrics: {c: x}\n",
     "s.yaml:2: chip: v9: no such file (relative to"),
    ("workloads: [a, b\n", "s.yaml:2: YAML syntax error"),
    ("workloads: {a: {ROOT}/models/graphs/layernorm.mlir}\nmetrics: {c: chip.cycles}\n"
     "run: {timeout: soon}\n", "s.yaml:3: run: expected {timeout: SECONDS, max_cycles: N}"),
])
def test_bad_study_files_are_located_errors(study_file, tmp_path, text, message):
    r = chipless("study", study_file(text), "-o", tmp_path / "out", check=False)
    assert r.returncode == 1
    assert message in r.stderr, r.stderr
    assert not (tmp_path / "out").exists()
