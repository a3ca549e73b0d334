"""The architecture a run used, read back from the arch.resolved.yaml it writes next to its
results: every parameter by its dotted key ("dram.bandwidth_gb_s": 204.8)."""
import yaml

#: libyaml's loader where Debian's python3-yaml has it (it does): ten times PyYAML's speed,
#: which a study reading one file per point notices.
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def flatten(tree, prefix=""):
    """{"a": {"b": 1}} -> {"a.b": 1}."""
    flat = {}
    for k, v in tree.items():
        if isinstance(v, dict):
            flat.update(flatten(v, f"{prefix}{k}."))
        else:
            flat[f"{prefix}{k}"] = v
    return flat


def read_resolved_arch(path):
    """{dotted key: value} of a resolved architecture file; OSError or yaml.YAMLError when
    it cannot be read."""
    with open(path, encoding="utf-8") as f:
        return flatten(yaml.load(f, Loader=_LOADER) or {})
