// Differential test of the emitter's scalar code on random programs: loops with carried
// values (bodies that read values from outside, branch and run inner loops), ifs with
// results, selects and compares, their values made observable through the addresses of
// DMA stores, run on spyre-sim and compared with a model of arith/scf (see the script).
// At high register pressure some programs need more than 16 live values: they must be
// rejected with the register error, every other one must run correctly.
// RUN: rm -rf %t
// RUN: /usr/bin/python3 %S/Inputs/random_scalar_programs.py --seeds 0 12 --work %t/low | FileCheck %s --check-prefix=LOW
// RUN: /usr/bin/python3 %S/Inputs/random_scalar_programs.py --seeds 500 8 --keep 13 --work %t/high | FileCheck %s
// LOW: random scalar programs: 12 passed, 0 rejected
// CHECK: random scalar programs: {{[0-9]+}} passed, {{[0-9]+}} rejected for register pressure
