"""The study's one-page report, as Markdown (plots linked) and as self-contained HTML
(plots inline as SVG): what was studied, the best point, the plots, the table."""
import html
import pathlib

from chipless.study.runner import best_results
from chipless.study.table import chip_label, columns, format_number, rows

#: Rows the Markdown table shows before pointing to results.csv for the rest.
MARKDOWN_ROWS = 60


def _point_text(result, study):
    p = result.point
    params = ", ".join(f"{k}={v}" for k, v in p.params.items())
    return (f"point {p.index}: {p.workload.name}" + (f", {params}" if params else "")
            + f" — {study.best_metric} = {format_number(result.metrics[study.best_metric])}")


def _summary(outcome):
    study, counts = outcome.study, outcome.counts
    best = best_results(outcome)
    chips = ", ".join(dict.fromkeys(chip_label(r.point.arch) for r in outcome.results))
    lines = [f"{counts['points']} points ({len(study.workloads)} workload"
             f"{'s' if len(study.workloads) != 1 else ''} on {chips}), "
             f"{counts['failed']} failed; {counts['programs']} distinct programs."]
    for name, result in best.items():
        lines.append(f"Best {name} ({study.best_goal} {study.best_metric}): "
                     f"{_point_text(result, study)}.")
    if not best:
        lines.append("No point ran successfully.")
    return lines


def _metric_lines(study):
    return [f"`{m.name}`: {m.describe()}" + (f" ({m.unit})" if m.unit else "")
            for m in study.metrics]


def _cells(row, names):
    return [format_number(row[c]) if c not in ("workload", "chip", "status", "error",
                                               "resolved_arch") else str(row[c] or "")
            for c in names]


def markdown(outcome, plots):
    """The report as Markdown; plot images are linked by relative path."""
    study = outcome.study
    names = [c for c in columns(study) if c != "resolved_arch"]
    out = [f"# Study: {study.name}", ""]
    if study.description:
        out += [study.description, ""]
    out += _summary(outcome) + ["", "Metrics: " + "; ".join(_metric_lines(study)) + ".", ""]
    for title, png, _svg in plots:
        out += [f"![{title}]({png})", ""]
    table = rows(outcome)
    out += ["| " + " | ".join(names) + " |", "|" + "---|" * len(names)]
    for row in table[:MARKDOWN_ROWS]:
        out.append("| " + " | ".join(c.replace("|", "\\|") for c in _cells(row, names)) + " |")
    if len(table) > MARKDOWN_ROWS:
        out += ["", f"{len(table) - MARKDOWN_ROWS} more rows in results.csv."]
    out += ["", f"Table: results.csv. Study file: {study.file.name}. "
                "Each point's architecture: points/*/arch.resolved.yaml.", ""]
    return "\n".join(out)


def _inline_svg(path):
    text = pathlib.Path(path).read_text()
    return text[text.find("<svg"):]


def html_page(outcome, plots, out_dir):
    """The report as one HTML file with the plots inline."""
    study = outcome.study
    names = [c for c in columns(study) if c != "resolved_arch"]
    e = html.escape
    body = [f"<h1>Study: {e(study.name)}</h1>"]
    if study.description:
        body.append(f"<p>{e(study.description)}</p>")
    body += [f"<p>{e(line)}</p>" for line in _summary(outcome)]
    body.append("<p>Metrics:</p><ul>" + "".join(f"<li>{e(m)}</li>" for m in
                                                _metric_lines(study)) + "</ul>")
    for title, _png, svg in plots:
        body.append(f"<figure>{_inline_svg(pathlib.Path(out_dir) / svg)}"
                    f"<figcaption>{e(title)}</figcaption></figure>")
    body.append("<table><thead><tr>" + "".join(f"<th>{e(n)}</th>" for n in names)
                + "</tr></thead><tbody>")
    for row in rows(outcome):
        cls = "" if row["status"] == "ok" else " class=\"failed\""
        body.append(f"<tr{cls}>" + "".join(f"<td>{e(c)}</td>" for c in _cells(row, names))
                    + "</tr>")
    body.append("</tbody></table>")
    style = ("body{font-family:sans-serif;max-width:1200px;margin:2em auto;font-size:14px}"
             "table{border-collapse:collapse;font-size:12px}td,th{border:1px solid #ccc;"
             "padding:2px 6px;text-align:right}tr.failed{background:#fdd}"
             "figure{margin:1em 0}svg{max-width:100%;height:auto}")
    return (f"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{e(study.name)}"
            f"</title><style>{style}</style></head><body>\n" + "\n".join(body)
            + "\n</body></html>\n")
