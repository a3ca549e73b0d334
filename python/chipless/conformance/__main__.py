"""python3 -m chipless.conformance [SUITE ...] [--junit FILE]"""
import sys

from chipless.conformance.command import main

sys.exit(main())
