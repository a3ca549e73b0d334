"""`chipless conformance`: every suite of scenarios/conformance/ (or those named) on the
emulated chips; a summary table, JUnit XML, exit status 1 when any check failed."""
import argparse
import fnmatch
import os
import pathlib
import sys
import time

from chipless import tools
from chipless.conformance.check import run_check
from chipless.conformance.junit import junit_xml
from chipless.conformance.suite import load_suite
from chipless.errors import ChiplessError
from chipless.study.command import write_atomically
from chipless.study.executors import LocalExecutor
from chipless.study.table import format_number


def parser():
    p = argparse.ArgumentParser(
        prog="chipless conformance",
        description="Run the conformance suites on the emulated chips: each case's outputs "
                    "against its fp32 reference, its cycles against the physical bounds, two "
                    "runs byte for byte.")
    p.add_argument("suites", nargs="*",
                   help="suite files (default: scenarios/conformance/*.yaml)")
    p.add_argument("--junit", help="write JUnit XML here")
    p.add_argument("--filter", action="append", default=[],
                   help="run only checks whose SUITE/CASE[CHIP] matches this glob or contains "
                        "this text (repeatable)")
    p.add_argument("--arch", help="run on this description instead of the bundled one of its "
                                  "chip (a file, or spyre, v4, v5e, v5p, v6e)")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="change one parameter of every chip that has it (repeatable)")
    p.add_argument("-o", "--output", default="out/conformance",
                   help="work folder: programs, inputs, outputs (default out/conformance)")
    p.add_argument("-j", "--jobs", type=int, default=None,
                   help="checks at once (default: one per core)")
    p.add_argument("--timeout", type=float, default=600, help="seconds per tool run")
    p.add_argument("--list", action="store_true", help="print the checks and stop")
    return p


def _selected(label, filters):
    return not filters or any(fnmatch.fnmatchcase(label, f) or f in label for f in filters)


def plan_checks(args):
    """The check tasks and the skipped checks of the chosen suites."""
    files = [pathlib.Path(s) for s in args.suites] or \
        sorted((tools.SOURCE_ROOT / "scenarios" / "conformance").glob("*.yaml"))
    if not files:
        raise ChiplessError("no suite files (scenarios/conformance/*.yaml)")
    override, override_label = args.arch, args.arch
    if override and pathlib.Path(override).is_file():
        override_label = pathlib.Path(override).stem
        override = str(pathlib.Path(override).resolve())
    if override:
        tools.describe_arch(override)   # chipless-arch's own error for a name it does not know
    described, tasks, skipped, seen = {}, [], [], set()
    out = pathlib.Path(args.output).resolve()
    for file in files:
        suite = load_suite(file)
        for case in suite.cases:
            for chip in case.chips:
                arch = chip
                if override and tools.chip_of(override) == tools.chip_of(chip):
                    arch, chip = override, override_label    # every chip of its kind
                if (suite.name, case.name, chip) in seen:
                    continue
                seen.add((suite.name, case.name, chip))
                label = f"{suite.name}/{case.name}[{chip}]"
                if not _selected(label, args.filter):
                    continue
                if case.skip:
                    skipped.append((suite.name, case.name, chip, case.skip))
                    continue
                if arch not in described:
                    described[arch] = tools.describe_arch(arch)
                sets = [s for s in args.set if s.split("=", 1)[0] in described[arch]["params"]]
                tasks.append({
                    "suite": suite.name, "case": case.name, "chip": chip, "arch": arch,
                    "chip_kind": described[arch]["chip"],
                    "kind": case.kind, "workload": str(case.workload),
                    "flags": list(case.compile_flags), "sets": sets,
                    "scalars": dict(case.scalars), "scales": dict(case.input_scales),
                    "index_bounds": dict(case.index_bounds), "seed": case.seed,
                    "references": case.references, "reference": case.reference_name,
                    "rtol": case.rtol, "atol": case.atol, "timeout": args.timeout,
                    "bin": str(tools.bin_dir()), "dir": str(out / suite.name / case.name / chip)})
    for s in args.set:
        key = s.split("=", 1)[0]
        if "=" not in s or not any(key in d["params"] for d in described.values()):
            raise ChiplessError(f"--set {s}: not a parameter of any chip the checks run on")
    return tasks, skipped


def summary_table(results, skipped):
    """The summary as Markdown: a row per check."""
    lines = ["| suite | case | chip | result | cycles | worst abs error | worst rel error | "
             "why |", "|---|---|---|---|---|---|---|---|"]
    for r in results:
        lines.append(f"| {r['suite']} | {r['case']} | {r['chip']} | "
                     f"{'pass' if r['ok'] else 'FAIL'} | {format_number(r['cycles'])} | "
                     f"{format_number(r['worst_abs_error'])} | "
                     f"{format_number(r['worst_rel_error'])} | "
                     f"{r['failure'].replace('|', '/')[:300]} |")
    for suite, case, chip, why in skipped:
        lines.append(f"| {suite} | {case} | {chip} | skipped |  |  |  | {why} |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    args = parser().parse_args(argv)
    try:
        tasks, skipped = plan_checks(args)
        if args.list:
            for t in tasks:
                print(f"{t['suite']}/{t['case']}[{t['chip']}]")
            return 0
        start = time.monotonic()
        executor = LocalExecutor(args.jobs)
        results = []
        try:
            for r in executor.run(run_check, tasks):
                results.append(r)
                mark = "pass" if r["ok"] else "FAIL"
                print(f"{mark} {r['suite']}/{r['case']}[{r['chip']}] ({r['seconds']:.1f} s)"
                      + (f": {r['failure']}" if not r["ok"] else ""), file=sys.stderr)
        finally:
            executor.close()
        order = {(t["suite"], t["case"], t["chip"]): i for i, t in enumerate(tasks)}
        results.sort(key=lambda r: order[(r["suite"], r["case"], r["chip"])])
        table = summary_table(results, skipped)
        write_atomically(pathlib.Path(args.output) / "summary.md", table)
        if args.junit:
            write_atomically(args.junit, junit_xml(results, skipped))
        failed = sum(1 for r in results if not r["ok"])
        print(table, end="")
        print(f"conformance: {len(results)} checks, {failed} failed, {len(skipped)} skipped in "
              f"{time.monotonic() - start:.1f} s" + (f"; JUnit: {args.junit}" if args.junit
                                                     else ""))
        return 1 if failed else 0
    except ChiplessError as e:
        print(f"chipless conformance: error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("chipless conformance: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
