// !ktdp.runtime_arg and ktdp.runtime_arg_extract: positive bounds on a scalar type; the
// value extracts as the underlying type, a declared bound as an index.
// RUN: ktir-opt %s -split-input-file -verify-diagnostics --ktdp-strict

func.func @no_granularity(%n: !ktdp.runtime_arg<index>) -> index {
  // expected-error @+1 {{extracts the granularity of '!ktdp.runtime_arg<index>', which declares none}}
  %g = ktdp.runtime_arg_extract granularity from %n : !ktdp.runtime_arg<index> -> index
  return %g : index
}

// -----

func.func @no_upperbound(%n: !ktdp.runtime_arg<index, granularity = 4>) -> index {
  // expected-error @+1 {{extracts the upper bound of '!ktdp.runtime_arg<index, granularity=4>', which declares none}}
  %u = ktdp.runtime_arg_extract upperbound from %n : !ktdp.runtime_arg<index, granularity = 4> -> index
  return %u : index
}

// -----

func.func @value_type(%n: !ktdp.runtime_arg<index>) -> i32 {
  // expected-error @+1 {{extracting the value gives 'index', not 'i32'}}
  %v = ktdp.runtime_arg_extract value from %n : !ktdp.runtime_arg<index> -> i32
  return %v : i32
}

// -----

func.func @bound_type(%n: !ktdp.runtime_arg<i32, upperbound = 64>) -> i32 {
  // expected-error @+1 {{extracting upperbound gives index, not 'i32'}}
  %u = ktdp.runtime_arg_extract upperbound from %n : !ktdp.runtime_arg<i32, upperbound = 64> -> i32
  return %u : i32
}

// -----

// expected-error @+1 {{runtime_arg granularity must be positive, got 0}}
func.func private @zero_granularity(!ktdp.runtime_arg<index, granularity = 0>)

// -----

// expected-error @+1 {{runtime_arg upperbound must be positive, got -8}}
func.func private @negative_bound(!ktdp.runtime_arg<index, upperbound = -8>)

// -----

// expected-error @+1 {{expected 'granularity' or 'upperbound', got 'bound'}}
func.func private @unknown_key(!ktdp.runtime_arg<index, bound = 8>)

// -----

// expected-error @+1 {{'granularity' given twice}}
func.func private @twice(!ktdp.runtime_arg<index, granularity = 8, granularity = 4>)

// -----

// expected-error @+1 {{runtime_arg must wrap an integer, index or float type, got 'tensor<4xf16>'}}
func.func private @not_scalar(!ktdp.runtime_arg<tensor<4xf16>>)
