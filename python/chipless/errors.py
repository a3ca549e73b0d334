"""The one exception chipless's Python layer raises for bad input: its message names the
file and line (or the field, or the tool's own located error), as the C++ tools do."""


class ChiplessError(Exception):
    """Bad input or a failed tool run; str() is the whole message, ready to print."""
