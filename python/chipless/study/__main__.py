"""python3 -m chipless.study FILE -o OUT"""
import sys

from chipless.study.command import main

sys.exit(main())
