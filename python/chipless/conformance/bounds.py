"""The physical lower bounds a run's cycle count may not beat, from its stats.json and the
architecture it ran on (arch.resolved.yaml, flattened to dotted keys): the work it did over
the peak rate of the unit that did it. A run faster than a bound means the model lost time
somewhere; conformance fails it.

Spyre: DRAM bytes over the DRAM bandwidth, PT MACs over the peak MAC rate of all corelets
(at the fastest number format, so no format can beat it), each ring link's bytes over the
link bandwidth. TPU: MXU FLOPs over the peak of all MXUs of all chips (int8 rate), each
chip's HBM bytes over its bandwidth, each ICI link's bytes over the link bandwidth.
"""


def _value(node):
    return node["value"] if isinstance(node, dict) and "value" in node else 0


def _spyre(stats, arch):
    chip = stats["chip"]
    per_cycle_dram = arch["dram.bandwidth_gb_s"] / arch["chip.clock_ghz"]
    macs = sum(_value(core.get(unit, {}).get("pt_macs")) for core in chip.get("core", [])
               for unit in core if unit.startswith("compute"))
    fastest = max(arch[k] for k in arch if k.startswith("pt.macs_per_pe_"))
    peak_macs = (arch["chip.cores"] * arch["chip.corelets_per_core"] * arch["pt.rows"]
                 * arch["pt.cols"] * fastest)
    bounds = [("dram", _value(chip["dram"]["bytes"]) / per_cycle_dram),
              ("pt", macs / peak_macs)]
    worst_link = 0
    for link in chip.get("ring", {}).get("link", []):
        for direction in link.values():
            worst_link = max(worst_link, _value(direction.get("bytes")))
    bounds.append(("ring link", worst_link / arch["ring.bytes_per_cycle"]))
    return _value(chip["cycles"]), bounds


def _tpu(stats, arch):
    chips = _value(stats["chips"]) or 1
    peak_flops = (2 * chips * arch["chip.tensorcores"] * arch["mxu.count"] * arch["mxu.rows"]
                  * arch["mxu.cols"] * max(1, arch["mxu.int8_speedup"]))
    per_cycle_hbm = arch["hbm.bandwidth_gb_s"] / arch["chip.clock_ghz"]
    hbm = max((_value(c["hbm"]["bytes_read"]) + _value(c["hbm"]["bytes_written"])
               for c in stats.get("chip", []) if "hbm" in c), default=0)
    per_cycle_ici = arch["ici.bandwidth_gb_s"] / arch["chip.clock_ghz"]
    ici = max((_value(link.get("bytes")) for link in stats.get("ici", {}).get("link", [])),
              default=0)
    return _value(stats["cycles"]), [("mxu", _value(stats["mxu_flops"]) / peak_flops),
                                     ("hbm", hbm / per_cycle_hbm),
                                     ("ici link", ici / per_cycle_ici)]


def check_bounds(stats, arch, tpu):
    """[(bound name, lower bound in cycles, cycles, holds)] for one run."""
    cycles, bounds = (_tpu if tpu else _spyre)(stats, arch)
    return [(name, bound, cycles, cycles >= bound * (1 - 1e-9)) for name, bound in bounds]
