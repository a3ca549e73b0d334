#include "runtime/host_functions.h"

#include "support/error.h"
#include "support/numerics.h"

namespace chipless::runtime {

namespace {

std::vector<float> asFloats(const NpyArray& a, const std::string& what) {
  if (a.dtype == DType::I32) throw Error(what + ": integer tensors are not supported");
  std::vector<float> v(a.elements());
  decodeToFloat(a.dtype, a.data.data(), v.data(), v.size(), Fp16Format::Ieee);
  return v;
}

NpyArray fromFloats(const std::vector<float>& v, const std::vector<int64_t>& shape) {
  NpyArray out = makeNpy(DType::F32, shape);
  encodeFromFloat(DType::F32, v.data(), out.data.data(), v.size(), Fp16Format::Ieee);
  return out;
}

void expectArity(const std::string& name, size_t ins, size_t outs, size_t wantIn, size_t wantOut) {
  if (ins != wantIn || outs != wantOut)
    throw Error("ComputeOnHost " + name + ": takes " + std::to_string(wantIn) + " input(s) and " +
                std::to_string(wantOut) + " output(s), got " + std::to_string(ins) + " and " +
                std::to_string(outs));
}

size_t count(const std::vector<int64_t>& shape) {
  size_t n = 1;
  for (int64_t d : shape) n *= static_cast<size_t>(d);
  return n;
}

} // namespace

std::vector<NpyArray> runHostFunction(const std::string& name, const std::vector<NpyArray>& inputs,
                                      const std::vector<std::vector<int64_t>>& outputShapes,
                                      const nlohmann::json& metadata) {
  const std::string what = "ComputeOnHost " + name;
  auto sameCount = [&](size_t n, const std::vector<int64_t>& shape) {
    if (n != count(shape))
      throw Error(what + ": output has " + std::to_string(count(shape)) + " elements, input " +
                  std::to_string(n));
  };
  if (name == "copy" || name == "scale") {
    expectArity(name, inputs.size(), outputShapes.size(), 1, 1);
    std::vector<float> v = asFloats(inputs[0], what);
    sameCount(v.size(), outputShapes[0]);
    if (name == "scale") {
      if (!metadata.contains("alpha") || !metadata["alpha"].is_number())
        throw Error(what + ": metadata.alpha must be a number");
      float alpha = metadata["alpha"].get<float>();
      for (float& x : v) x *= alpha;
    }
    return {fromFloats(v, outputShapes[0])};
  }
  if (name == "add") {
    expectArity(name, inputs.size(), outputShapes.size(), 2, 1);
    std::vector<float> a = asFloats(inputs[0], what), b = asFloats(inputs[1], what);
    if (a.size() != b.size())
      throw Error(what + ": inputs have " + std::to_string(a.size()) + " and " +
                  std::to_string(b.size()) + " elements");
    sameCount(a.size(), outputShapes[0]);
    for (size_t i = 0; i < a.size(); ++i) a[i] += b[i];
    return {fromFloats(a, outputShapes[0])};
  }
  if (name == "sum_rows") {
    expectArity(name, inputs.size(), outputShapes.size(), 1, 1);
    const NpyArray& in = inputs[0];
    if (in.shape.size() != 2) throw Error(what + ": input must be 2-D");
    std::vector<float> v = asFloats(in, what);
    size_t rows = static_cast<size_t>(in.shape[0]), cols = static_cast<size_t>(in.shape[1]);
    sameCount(cols, outputShapes[0]);
    std::vector<float> out(cols, 0.0f);
    for (size_t r = 0; r < rows; ++r)
      for (size_t c = 0; c < cols; ++c) out[c] += v[r * cols + c];
    return {fromFloats(out, outputShapes[0])};
  }
  throw Error(what + ": unknown host function (known: copy, add, scale, sum_rows)");
}

} // namespace chipless::runtime
