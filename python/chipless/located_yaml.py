"""YAML read with the line of every value kept, so that a study or suite file's errors can
name `file:line: field: problem` as the C++ readers do."""
import yaml

from chipless.errors import ChiplessError


class LocatedDict(dict):
    """A mapping from a YAML file; `line` is its own line, `lines[key]` the line of each value."""
    line = 0
    lines: dict


class LocatedList(list):
    """A sequence from a YAML file; `line` is its own line, `lines[i]` the line of each item."""
    line = 0
    lines: list


class _Loader(yaml.SafeLoader):
    """SafeLoader that builds LocatedDict/LocatedList and refuses duplicate keys."""


def _construct_mapping(loader, node):
    result = LocatedDict()
    result.line = node.start_mark.line + 1
    result.lines = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        if not isinstance(key, (str, int, float, bool)):
            raise ChiplessError(f"{loader.name}:{key_node.start_mark.line + 1}: "
                                "a key must be a plain word or number")
        if key in result:
            raise ChiplessError(f"{loader.name}:{key_node.start_mark.line + 1}: "
                                f"duplicate key '{key}' (first on line {result.lines[key]})")
        result[key] = loader.construct_object(value_node, deep=True)
        result.lines[key] = value_node.start_mark.line + 1
    return result


def _construct_sequence(loader, node):
    result = LocatedList(loader.construct_object(child, deep=True) for child in node.value)
    result.line = node.start_mark.line + 1
    result.lines = [child.start_mark.line + 1 for child in node.value]
    return result


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _construct_sequence)


def load_located(path):
    """The YAML document of `path` with line numbers; ChiplessError naming the file and
    line on unreadable files and syntax errors."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise ChiplessError(f"{path}: cannot read: {e.strerror}") from None
    loader = _Loader(text)
    loader.name = str(path)
    try:
        return loader.get_single_data()
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        line = f":{mark.line + 1}" if mark else ""
        raise ChiplessError(f"{path}{line}: YAML syntax error: {e.problem or e.context}") from None
    except yaml.YAMLError as e:
        raise ChiplessError(f"{path}: YAML error: {e}") from None
    finally:
        loader.dispose()


def line_of(container, key, default=0):
    """The line of `container[key]` when the container came from load_located, else of the
    container itself, else `default`."""
    lines = getattr(container, "lines", None)
    if isinstance(lines, dict) and key in lines:
        return lines[key]
    if isinstance(lines, list) and isinstance(key, int) and 0 <= key < len(lines):
        return lines[key]
    return getattr(container, "line", default)
