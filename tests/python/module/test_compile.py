"""chipless.compile: the compilers in this process, byte-identical to the tools, with their
errors as ChiplessError, and the compile cache."""
import filecmp
import json
import pathlib
import subprocess

import pytest

import chipless
from chipless import tools

ROOT = pathlib.Path(__file__).resolve().parents[3]
VADD = ROOT / "models" / "kernels" / "vadd_dynamic.mlir"
SPYRE_MLP = ROOT / "models" / "graphs" / "spyre_mlp.mlir"
SOFTMAX = ROOT / "models" / "graphs" / "softmax.mlir"

BAD_KTIR = """func.func @k(%a: index) {
  %x = arith.constant 1 : index
  %y = arith.addi %x, %nope : index
  return
}
"""


def same_tree(a, b):
    """Every file of directory a is in b with the same bytes, and the other way round."""
    cmp = filecmp.dircmp(a, b)
    assert not cmp.left_only and not cmp.right_only, (cmp.left_only, cmp.right_only)
    _, mismatch, errors = filecmp.cmpfiles(a, b, cmp.common_files, shallow=False)
    assert not mismatch and not errors, (mismatch, errors)
    for sub in cmp.common_dirs:
        same_tree(pathlib.Path(a) / sub, pathlib.Path(b) / sub)


@pytest.mark.parametrize("source,chip,arch", [(VADD, "spyre", None),
                                              (SPYRE_MLP, "spyre", None),
                                              (SOFTMAX, "tpu", "v6e")])
def test_a_compile_writes_what_the_tool_writes(tmp_path, source, chip, arch):
    ours = chipless.compile(source, tmp_path / "ours", arch=arch, chip=chip,
                            dump_dir=tmp_path / "ours-dump")
    tool = "spyre-compile" if chip == "spyre" else "tpu-compile"
    args = [tools.tool(tool), source, "-o", tmp_path / "tool", "--dump-dir",
            tmp_path / "tool-dump"] + (["--arch", arch] if arch else [])
    status, _, err = tools.run_tool(args)
    assert status == 0, err
    same_tree(ours, tmp_path / "tool")
    same_tree(tmp_path / "ours-dump", tmp_path / "tool-dump")


def test_the_chip_follows_the_architecture(tmp_path):
    out = chipless.compile(SOFTMAX, tmp_path / "p", arch="v5e")
    assert '"tpuprog"' in (out / "job.plan").read_text()


def test_located_errors_are_the_tools_messages(tmp_path):
    bad = tmp_path / "bad.mlir"
    bad.write_text(BAD_KTIR)
    with pytest.raises(chipless.ChiplessError) as raised:
        chipless.compile(bad, tmp_path / "out")
    message = str(raised.value)
    assert message.startswith(f"{bad}:3:"), message
    assert "error:" in message and "%nope" in message
    r = subprocess.run([tools.tool("spyre-compile"), bad, "-o", tmp_path / "out2"],
                       capture_output=True, text=True, env=tools.tool_environment())
    assert r.returncode == 1 and r.stderr.strip() == message
    assert not (tmp_path / "out").exists()  # nothing written


def test_text_is_named_in_its_errors(tmp_path):
    with pytest.raises(chipless.ChiplessError, match=r"^kernel\.mlir:3:\d+: error:"):
        chipless.compile(text=BAD_KTIR, name="kernel.mlir", output=tmp_path / "out")


def test_option_errors(tmp_path):
    with pytest.raises(chipless.ChiplessError, match="--const n: expected NAME=VALUE"):
        chipless.compile(VADD, tmp_path / "o", consts=["n"])
    with pytest.raises(chipless.ChiplessError, match="is a tensor graph: --const"):
        chipless.compile(SPYRE_MLP, tmp_path / "o", consts={"n": 4})
    with pytest.raises(chipless.ChiplessError, match="--grid: Spyre compile options"):
        chipless.compile(SOFTMAX, tmp_path / "o", chip="tpu", grid=[2])
    with pytest.raises(chipless.ChiplessError, match="chip 'gpu': expected 'spyre' or 'tpu'"):
        chipless.compile(VADD, tmp_path / "o", chip="gpu")
    with pytest.raises(chipless.ChiplessError, match="either a source file or text="):
        chipless.compile()
    with pytest.raises(chipless.ChiplessError, match="missing.mlir: cannot read"):
        chipless.compile(tmp_path / "missing.mlir", tmp_path / "o")
    with pytest.raises(chipless.ChiplessError, match=r"--set nosuch\.key=1"):
        chipless.compile(VADD, tmp_path / "o", sets=["nosuch.key=1"])
    assert not (tmp_path / "o").exists()


def test_the_cache_compiles_once_per_source_and_options(tmp_path):
    before = chipless.compile_cache_info()
    first = chipless.compile(VADD)
    again = chipless.compile(VADD)
    bounded = chipless.compile(VADD, grid=[16])
    after = chipless.compile_cache_info()
    assert first == again != bounded
    assert after["hits"] - before["hits"] == 1
    assert after["misses"] - before["misses"] == 2
    assert pathlib.Path(after["directory"]) == tmp_path / "cache"
    assert (first / "job.plan").exists()
    assert [p.name for p in (tmp_path / "cache" / "programs").iterdir()
            if p.name.startswith(".")] == []  # no staging folder left
    # A changed parameter is another program (even a timing one: its record differs).
    assert chipless.compile(VADD, sets=["dram.bandwidth_gb_s=400"]) != first


def test_an_edited_kernel_is_named_from_its_new_text(tmp_path):
    # A plan's tensors are named after the source's SSA names. An edit between two compiles
    # in one process gives the new names: the text is read again for each compile, not kept
    # from the first.
    kernel = tmp_path / "vadd.mlir"
    kernel.write_text(VADD.read_text())
    before = chipless.compile(kernel, tmp_path / "before")
    kernel.write_text(VADD.read_text().replace("%A_ptr", "%P_ptr"))
    after = chipless.compile(kernel, tmp_path / "after")

    def names(program):
        plan = json.loads((pathlib.Path(program) / "job.plan").read_text())
        return [a["name"] for a in plan["arguments"]]

    assert names(before) == ["A", "B", "C"]
    assert names(after) == ["P", "B", "C"]
    # Text given in memory is named from its own lines too (there is no file to read).
    from_text = chipless.compile(text=VADD.read_text(), output=tmp_path / "text")
    assert names(from_text) == ["A", "B", "C"]


def test_a_failed_compile_leaves_nothing_in_the_cache(tmp_path):
    with pytest.raises(chipless.ChiplessError):
        chipless.compile(text=BAD_KTIR)
    programs = tmp_path / "cache" / "programs"
    assert not programs.exists() or list(programs.iterdir()) == []


@pytest.mark.parametrize("source,chip,arch", [
    (ROOT / "models" / "kernels" / "matmul.s", "spyre", None),
    (ROOT / "models" / "tpu-kernels" / "gemm.s", "tpu", "v6e")])
def test_assembly_assembles_and_disassembles_as_the_tools_do(tmp_path, source, chip, arch):
    ours = chipless.assemble(source, tmp_path / "ours", arch=arch)
    assert chipless.assemble(source, arch=arch) != ours  # the cache holds another copy
    tool = tools.tool("spyre-as" if chip == "spyre" else "tpu-as")
    status, _, err = tools.run_tool([tool, source, "-o", tmp_path / "tool"] +
                                    (["--arch", arch] if arch else []))
    assert status == 0, err
    same_tree(ours, tmp_path / "tool")
    status, text, err = tools.run_tool([tool, "-d", ours / "job.plan"])
    assert status == 0, err
    assert chipless.disassemble(ours) == text


def test_assembly_errors_name_the_line(tmp_path):
    with pytest.raises(chipless.ChiplessError, match=r"^k\.s:3: "):
        chipless.assemble(text=".kernel k\n.input A f16 [4, 64]\n  bogus.op 1\n", name="k.s",
                          output=tmp_path / "o")
    assert not (tmp_path / "o").exists()


def test_keep_in_scratchpad_is_an_option_of_the_compile_and_its_cache(tmp_path):
    """keep_in_scratchpad=False is spyre-compile --keep-in-scratchpad=false: attention's
    probabilities become a buffer of the job again; the two compiles are two cache entries;
    a TPU compile refuses the option."""
    import sys
    sys.path.insert(0, str(ROOT / "tests" / "python"))
    from frontend_util import attention_graph
    text = attention_graph(4, 128, 64)
    buffers = lambda p: {b["name"] for b in json.loads((p / "job.plan").read_text()).get("buffers", [])}  # noqa: E731
    kept = chipless.compile(text=text)
    sent = chipless.compile(text=text, keep_in_scratchpad=False)
    assert kept != sent and "t2" not in buffers(kept) and "t2" in buffers(sent)
    assert chipless.compile(text=text, keep_in_scratchpad=False) == sent
    with pytest.raises(chipless.ChiplessError, match="--keep-in-scratchpad=false"):
        chipless.compile(SOFTMAX, tmp_path / "tpu", chip="tpu", arch="v6e", keep_in_scratchpad=False)
