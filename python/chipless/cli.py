"""The `chipless` command: `chipless study ...`, `chipless conformance ...`."""
import sys

USAGE = """usage: chipless COMMAND [ARGS]

commands:
  study FILE -o OUT      run an architecture what-if study (docs/studies.md)
  conformance [SUITE]    run the conformance suites on the emulated chips (docs/conformance.md)
"""


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE, end="")
        return 0 if argv else 2
    command, rest = argv[0], argv[1:]
    if command == "study":
        from chipless.study.command import main as study
        return study(rest)
    if command == "conformance":
        from chipless.conformance.command import main as conformance
        return conformance(rest)
    print(f"chipless: error: unknown command {command!r}\n{USAGE}", end="", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
