"""The study's plots (matplotlib, Agg): line plots over one parameter, heat maps over two,
grouped bars, and roofline plots of achieved performance against the chip's peaks. Each is
written as PNG and SVG; the same table gives the same files."""
import math
import pathlib
import textwrap

from chipless.errors import ChiplessError
from chipless.study.table import chip_label, format_number, rows


def _matplotlib():
    import matplotlib
    matplotlib.use("Agg")
    matplotlib.rcParams["svg.hashsalt"] = "chipless"
    matplotlib.rcParams["font.size"] = 9
    import matplotlib.pyplot as plt
    return plt


def _selected(table, plot):
    where = plot.get("where") or {}
    chosen = []
    for row in table:
        if row["status"] != "ok":
            continue
        if all(str(row.get(k)) == str(v) or (k == "chip" and row["chip"] == chip_label(v))
               for k, v in where.items()):
            chosen.append(row)
    return chosen


def _sort_key(value):
    return (0, value, "") if isinstance(value, (int, float)) else (1, 0, str(value))


def _ordered(values):
    """Numbers in increasing order; words (workloads, chips) in the order the study has them."""
    values = list(dict.fromkeys(values))
    if all(isinstance(v, (int, float)) for v in values):
        return sorted(values)
    return values


def _groups(chosen, key):
    if not key:
        return [(None, chosen)]
    values = _ordered(r[key] for r in chosen)
    return [(v, [r for r in chosen if r[key] == v]) for v in values]


def _title(plot, index):
    if plot.get("title"):
        return str(plot["title"])
    k = plot["kind"]
    if k == "heatmap":
        return f"{plot['value']} over {plot['x']} and {plot['y']}"
    if k == "roofline":
        return f"{plot['performance']} against {plot['intensity']} (roofline)"
    return f"{plot['y']} against {plot['x']}"


def _unique(rows_, keys, plot_index):
    seen = {}
    for r in rows_:
        k = tuple(r[x] for x in keys)
        if k in seen:
            raise ChiplessError(f"plots[{plot_index}]: points {seen[k]} and {r['point']} fall on "
                                "the same place ("
                                + ", ".join(f"{a}={b}" for a, b in zip(keys, k)) + ");"
                                " fix the other parameters with where: or split with per:/series:")
        seen[k] = r["point"]


def _draw(ax, plot, chosen, index):
    kind, log = plot["kind"], str(plot.get("log", ""))
    if kind == "line":
        _unique(chosen, [plot["x"]] + ([plot["series"]] if plot.get("series") else []), index)
        for value, group in _groups(chosen, plot.get("series")):
            group = sorted(group, key=lambda r: _sort_key(r[plot["x"]]))
            label = f"{plot['series']}={value}" if plot.get("series") else None
            ax.plot([r[plot["x"]] for r in group], [r[plot["y"]] for r in group], marker="o",
                    label=label)
        ax.set_xlabel(plot["x"])
        ax.set_ylabel(plot["y"])
        if plot.get("series"):
            ax.legend(fontsize=7)
    elif kind == "bar":
        _unique(chosen, [plot["x"]] + ([plot["series"]] if plot.get("series") else []), index)
        xs = _ordered(r[plot["x"]] for r in chosen)
        series = _groups(chosen, plot.get("series"))
        width = 0.8 / max(1, len(series))
        for s, (value, group) in enumerate(series):
            by_x = {r[plot["x"]]: r[plot["y"]] for r in group}
            positions = [i + s * width for i, x in enumerate(xs) if x in by_x]
            ax.bar(positions, [by_x[x] for x in xs if x in by_x], width,
                   label=f"{plot['series']}={value}" if plot.get("series") else None)
        ax.set_xticks([i + width * (len(series) - 1) / 2 for i in range(len(xs))])
        ax.set_xticklabels([str(x) for x in xs], rotation=30 if len(xs) > 6 else 0)
        ax.set_xlabel(plot["x"])
        ax.set_ylabel(plot["y"])
        if plot.get("series"):
            ax.legend(fontsize=7)
    elif kind == "heatmap":
        _unique(chosen, [plot["x"], plot["y"]], index)
        xs = sorted({r[plot["x"]] for r in chosen}, key=_sort_key)
        ys = sorted({r[plot["y"]] for r in chosen}, key=_sort_key)
        grid = [[math.nan] * len(xs) for _ in ys]
        for r in chosen:
            grid[ys.index(r[plot["y"]])][xs.index(r[plot["x"]])] = r[plot["value"]]
        image = ax.imshow(grid, origin="lower", aspect="auto", cmap="viridis")
        ax.figure.colorbar(image, ax=ax, label=plot["value"])
        for j, row in enumerate(grid):
            for i, v in enumerate(row):
                if not math.isnan(v):
                    ax.text(i, j, format_number(v), ha="center", va="center", fontsize=6,
                            color="white")
        ax.set_xticks(range(len(xs)))
        ax.set_xticklabels([str(x) for x in xs])
        ax.set_yticks(range(len(ys)))
        ax.set_yticklabels([str(y) for y in ys])
        ax.set_xlabel(plot["x"])
        ax.set_ylabel(plot["y"])
        log = ""
    else:
        _roofline(ax, plot, chosen)
        log = log or "xy"
    if "x" in log:
        ax.set_xscale("log")
    if "y" in log:
        ax.set_yscale("log")
    if kind == "line":
        _ticks_at_values(ax, sorted({r[plot["x"]] for r in chosen}, key=_sort_key))
    if kind != "heatmap":
        ax.grid(True, alpha=0.3)


def _ticks_at_values(ax, xs):
    """Ticks where the swept values are, written as the study file writes them."""
    if xs and all(isinstance(x, (int, float)) for x in xs) and len(xs) <= 12:
        from matplotlib.ticker import NullFormatter
        ax.set_xticks(xs)
        ax.set_xticklabels([format_number(x) for x in xs], rotation=30 if len(xs) > 6 else 0)
        ax.xaxis.set_minor_formatter(NullFormatter())


def _si(value):
    """1.23 T, 456 G: a peak for a plot label."""
    for factor, prefix in ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= factor:
            return f"{value / factor:.3g} {prefix}"
    return f"{value:.3g}"


def _roofline(ax, plot, chosen):
    chosen = [r for r in chosen if r[plot["intensity"]] > 0 and r[plot["performance"]] > 0]
    if not chosen:
        return
    roofs = sorted({(r[plot["peak_compute"]], r[plot["peak_bandwidth"]]) for r in chosen})
    intensities = [r[plot["intensity"]] for r in chosen if r[plot["intensity"]] > 0]
    lo = min(intensities + [b and c / b for c, b in roofs if b]) / 4
    hi = max(intensities + [b and c / b for c, b in roofs if b]) * 4
    for compute, bandwidth in roofs:
        ridge = compute / bandwidth
        xs = [lo, ridge, hi]
        ax.plot(xs, [min(compute, x * bandwidth) for x in xs], color="grey", linewidth=1)
        ax.annotate(f"peak {_si(compute)}", (hi, compute), fontsize=6, ha="right",
                    va="bottom", color="grey")
    label = plot.get("label") or "workload"
    for value, group in _groups(chosen, label):
        ax.scatter([r[plot["intensity"]] for r in group], [r[plot["performance"]] for r in group],
                   label=f"{label}={value}", zorder=3)
    ax.set_xlabel(plot["intensity"])
    ax.set_ylabel(plot["performance"])
    ax.legend(fontsize=7)


def draw_plots(outcome, directory):
    """Draws every plot of the study into `directory`; returns [(title, png, svg)] with
    paths relative to the directory's parent. A plot with no successful point is skipped."""
    study = outcome.study
    if not study.plots:
        return []
    plt = _matplotlib()
    directory = pathlib.Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    table = rows(outcome)
    drawn = []
    for index, plot in enumerate(study.plots):
        chosen = _selected(table, plot)
        if not chosen:
            continue
        facets = _groups(chosen, plot.get("per"))
        columns = min(3, len(facets))
        lines = math.ceil(len(facets) / columns)
        figure, axes = plt.subplots(lines, columns, figsize=(4.2 * columns, 3.4 * lines),
                                    squeeze=False)
        for n, (value, group) in enumerate(facets):
            ax = axes[n // columns][n % columns]
            _draw(ax, plot, group, index)
            if plot.get("per"):
                ax.set_title(f"{plot['per']} = {value}", fontsize=9)
        for n in range(len(facets), lines * columns):
            axes[n // columns][n % columns].axis("off")
        title = _title(plot, index)
        figure.suptitle("\n".join(textwrap.wrap(title, 45 * columns)))
        figure.tight_layout()
        stem = f"{index:02d}-{plot['kind']}"
        figure.savefig(directory / f"{stem}.png", dpi=110, metadata={"Software": None})
        figure.savefig(directory / f"{stem}.svg", metadata={"Date": None})
        plt.close(figure)
        drawn.append((title, f"{directory.name}/{stem}.png", f"{directory.name}/{stem}.svg"))
    return drawn
