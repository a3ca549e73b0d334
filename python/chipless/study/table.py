"""The study's table: one row per point, one column per parameter and metric, as CSV that
pandas reads as it is (`pandas.read_csv("results.csv")`). The same results give the same
bytes, whichever executor ran them."""
import csv
import io
import pathlib


def chip_label(arch):
    """How a point's chip is written in tables: a bundled name, or the file's name."""
    return pathlib.Path(arch).name if "/" in str(arch) else str(arch)


def columns(study):
    """The table's columns, in order."""
    params = [p for p in study.parameters if p != "chip"]
    return (["point", "workload", "chip"] + params + [m.name for m in study.metrics]
            + ["status", "error", "resolved_arch"])


def rows(outcome):
    """Each point's row as a dict column -> value (None where a failed point has none)."""
    study = outcome.study
    table = []
    for r in outcome.results:
        p = r.point
        row = {"point": p.index, "workload": p.workload.name, "chip": chip_label(p.arch)}
        for name in study.parameters:
            if name != "chip":
                row[name] = p.params.get(name)
        for m in study.metrics:
            row[m.name] = r.metrics.get(m.name)
        row["status"] = "ok" if r.ok else "failed"
        row["error"] = " | ".join(r.error.splitlines()) if r.error else ""
        row["resolved_arch"] = r.arch_file
        table.append(row)
    return table


def _cell(value):
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    return str(value)


def csv_text(outcome):
    """The CSV text of the table."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    names = columns(outcome.study)
    writer.writerow(names)
    for row in rows(outcome):
        writer.writerow([_cell(row[c]) for c in names])
    return buffer.getvalue()


def format_number(value):
    """A metric for reading: whole numbers (and reals from 1000 up) with thousands
    separators, others to 4 significant digits."""
    if value is None:
        return ""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, int) or float(value).is_integer() and abs(value) < 1e15:
        return f"{int(value):,}"
    if 1000 <= abs(value) < 1e15:
        return f"{value:,.0f}"
    return f"{value:.4g}"
