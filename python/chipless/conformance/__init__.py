"""CI conformance on the emulated hardware: `chipless conformance [--junit FILE]`.

suite (the suite files of scenarios/conformance/), bounds (the physical lower bounds a run
may not beat), check (compile, run twice, compare with the fp32 reference), junit (the XML),
command (the command line). docs/conformance.md is the user's reference.
"""
