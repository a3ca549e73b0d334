// #ktdp.memory_space and #ktdp.spyre_memory_space: known kinds; a tile id only for a
// scratchpad, never negative.
// RUN: ktir-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{'ct_id' is only valid with 'ct_local' memory}}
func.func private @global_with_tile(memref<4xf16, #ktdp.memory_space<global, ct_id = 1>>)

// -----

// expected-error @+1 {{'ct_id' must be non-negative, got -1}}
func.func private @negative_tile(memref<4xf16, #ktdp.memory_space<ct_local, ct_id = -1>>)

// -----

// expected-error @+1 {{expected 'global' or 'ct_local', got 'hbm'}}
func.func private @unknown_kind(memref<4xf16, #ktdp.memory_space<hbm>>)

// -----

// expected-error @+1 {{expected 'ct_id'}}
func.func private @wrong_key(memref<4xf16, #ktdp.memory_space<ct_local, core = 1>>)

// -----

// expected-error @+1 {{'core' is only valid with 'LX' or 'L0' memory}}
func.func private @hbm_with_core(memref<4xf16, #ktdp.spyre_memory_space<HBM, core = 2>>)

// -----

// expected-error @+1 {{expected 'HBM', 'LX', 'L0' or 'unspecified', got 'DDR'}}
func.func private @unknown_spyre_kind(memref<4xf16, #ktdp.spyre_memory_space<DDR>>)
