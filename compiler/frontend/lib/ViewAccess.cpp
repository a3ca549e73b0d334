//===- ViewAccess.cpp - boxes of a tensor as it lies in device memory -----===//
//
// Part of chipless. The KernelWriter's loads and stores of boxes of a strided view
// (Layout.h): one global memory view per layout with a dimension per factor, an access tile
// over the factors, and the collapse (and slice of padding) that turns the tile back into the
// logical box; stores go the other way, whole sticks in one store and the values of a last
// partial stick in a second.
//
//===----------------------------------------------------------------------===//

#include "KernelWriter.h"

namespace chipless::frontend {

std::optional<TensorView> KernelWriter::accessView(Value v, Form f) const {
  auto it = plan_.views.find(v);
  if (it == plan_.views.end()) return std::nullopt;
  // A transposed B is read through its own dimensions (its rows need not fold).
  if (k_.transposedB && v == k_.ops.front()->getOperand(1)) return it->second;
  if (f == Form::Matrix || f == Form::Repeated || f == Form::Spread) return matrixView(it->second);
  return vectorView(it->second);
}

std::string KernelWriter::constant(int64_t value) {
  const std::string n = "%kq" + std::to_string(fresh_++);
  text_ << "    " << n << " = arith.constant " << value << " : index\n";
  return n;
}

std::string KernelWriter::memView(const TensorView& tv, const std::string& elemType) {
  const std::string root = names_.lookup(tv.root);
  std::vector<int64_t> sizes, strides;
  for (const DimLayout& d : tv.dims)
    for (const Factor& f : d.factors) {
      sizes.push_back(f.size);
      strides.push_back(f.stride);
    }
  const std::string key = root + " " + tv.describe() + " " + elemType;
  if (auto it = views_.find(key); it != views_.end()) return it->second;
  const std::string name = "%kv" + std::to_string(views_.size());
  views_[key] = name;
  argumentNamed(root);
  std::string base = "%" + root + "_ptr";
  if (tv.offset != 0) {
    const std::string off = constant(tv.offset);
    text_ << "    " << name << "base = arith.addi " << base << ", " << off << " : index\n";
    base = name + "base";
  }
  text_ << "    " << name << " = ktdp.construct_memory_view " << base << ", sizes: ["
        << dimsText(sizes, ", ") << "], strides: [" << dimsText(strides, ", ")
        << "] {\n      coordinate_set = " << boxSet(sizes)
        << ", memory_space = #ktdp.memory_space<global>\n    } : memref<" << dimsText(sizes) << "x"
        << elemType << ">\n";
  memrefs_[name] = "memref<" + dimsText(sizes) + "x" + elemType + ">";
  return name;
}

FailureOr<KernelWriter::BoxDim> KernelWriter::boxDim(const DimLayout& d, const std::string& start,
                                                     int64_t n) {
  BoxDim b;
  const size_t k = d.factors.size();
  b.starts.assign(k, "%kc0");
  b.sizes.assign(k, 1);
  if (k == 1) {
    b.starts[0] = start;
    b.sizes[0] = n;
    b.covered = n;
    return b;
  }
  if (n == d.size) {
    // The whole dimension (a box starts at 0): every factor whole, the padding sliced off.
    for (size_t i = 0; i < k; ++i) b.sizes[i] = d.factors[i].size;
    b.covered = d.covered();
    return b;
  }
  // A block of the dimension in mixed radix, innermost factor first: whole inner factors,
  // then a run within the next (which must not cross its end), then one position of each
  // outer factor.
  int64_t rest = n;
  std::string pos = start;
  auto divide = [&](int64_t by) {
    if (pos == "%kc0") return;
    const std::string c = constant(by), q = "%kx" + std::to_string(fresh_++);
    text_ << "    " << q << " = arith.divui " << pos << ", " << c << " : index\n";
    pos = q;
  };
  for (size_t i = k; i-- > 0;) {
    const int64_t size = d.factors[i].size;
    if (i > 0 && rest >= size) {
      if (rest % size != 0) return failure();
      b.sizes[i] = size;
      rest /= size;
      divide(size);
      continue;
    }
    if (rest > size || (i > 0 && size % rest != 0)) return failure();
    b.sizes[i] = rest;
    rest = 1;
    if (pos != "%kc0" && i > 0) {
      const std::string c = constant(size), m = "%kx" + std::to_string(fresh_++);
      text_ << "    " << m << " = arith.remui " << pos << ", " << c << " : index\n";
      b.starts[i] = m;
      divide(size);
    } else {
      b.starts[i] = pos;
    }
  }
  b.covered = n;
  return b;
}

FailureOr<std::string> KernelWriter::loadBox(const TensorView& tv, const std::string& elemType,
                                             const std::vector<std::string>& start,
                                             const std::vector<int64_t>& box) {
  const std::string view = memView(tv, elemType);
  std::vector<BoxDim> dims;
  for (size_t i = 0; i < tv.dims.size(); ++i) {
    FailureOr<BoxDim> b = boxDim(tv.dims[i], start[i], box[i]);
    if (failed(b)) return failure();
    dims.push_back(*b);
  }
  std::vector<std::string> starts;
  std::vector<int64_t> tileShape, covered;
  std::string groups;
  bool collapse = false, slice = false;
  for (const BoxDim& b : dims) {
    groups += groups.empty() ? "[" : ", [";
    for (size_t i = 0; i < b.sizes.size(); ++i) {
      groups += (i ? ", " : "") + std::to_string(tileShape.size());
      starts.push_back(b.starts[i]);
      tileShape.push_back(b.sizes[i]);
    }
    groups += "]";
    collapse |= b.sizes.size() > 1;
    covered.push_back(b.covered);
  }
  for (size_t i = 0; i < box.size(); ++i) slice |= covered[i] != box[i];
  const std::string n = std::to_string(fresh_++);
  std::string startText;
  for (size_t i = 0; i < starts.size(); ++i) startText += (i ? ", " : "") + starts[i];
  const std::string tileT = "!ktdp.access_tile<" + dimsText(tileShape) + "xindex>";
  const std::string loadT = "tensor<" + dimsText(tileShape) + "x" + elemType + ">";
  text_ << "    %kt" << n << " = ktdp.construct_access_tile " << view << "[" << startText
        << "] {\n      access_tile_set = " << boxSet(tileShape)
        << ", access_tile_order = " << identityMap(tileShape.size()) << "\n    } : "
        << memrefs_[view] << " -> " << tileT << "\n    %kin" << n << " = ktdp.load %kt" << n
        << " : " << tileT << " -> " << loadT << "\n";
  std::string value = "%kin" + n;
  if (collapse) {
    const std::string t = "tensor<" + dimsText(covered) + "x" + elemType + ">";
    text_ << "    %kcol" << n << " = tensor.collapse_shape " << value << " [" << groups << "] : "
          << loadT << " into " << t << "\n";
    value = "%kcol" + n;
    if (slice) {
      std::vector<int64_t> zeros(box.size(), 0), ones(box.size(), 1);
      text_ << "    %ksl" << n << " = tensor.extract_slice " << value << "[" << dimsText(zeros, ", ")
            << "] [" << dimsText(box, ", ") << "] [" << dimsText(ones, ", ") << "] : " << t
            << " to tensor<" << dimsText(box) << "x" << elemType << ">\n";
      value = "%ksl" + n;
    }
  } else if (slice) {
    return failure();
  }
  return value;
}

LogicalResult KernelWriter::storeBox(const std::string& value, const TensorView& tv,
                                     const std::string& elemType,
                                     const std::vector<std::string>& start,
                                     const std::vector<int64_t>& box) {
  const std::string view = memView(tv, elemType);
  const size_t rank = tv.dims.size();
  const DimLayout& last = tv.dims.back();
  // A last dimension in sticks whose box ends inside a stick: the whole sticks, then the
  // values of the partial one.
  int64_t stick = last.factors.size() > 1 ? last.factors.back().size : 0;
  struct Part {
    int64_t from, count;
  };
  std::vector<Part> parts;
  if (stick && box.back() % stick != 0) {
    if (box.back() >= stick) parts.push_back({0, box.back() / stick * stick});
    parts.push_back({box.back() / stick * stick, box.back() % stick});
  } else {
    parts.push_back({0, box.back()});
  }
  const std::string whole = "tensor<" + dimsText(box) + "x" + elemType + ">";
  for (const Part& p : parts) {
    std::vector<int64_t> partBox = box;
    partBox.back() = p.count;
    std::string partValue = value;
    std::string partType = whole;
    if (parts.size() > 1) {
      std::vector<int64_t> offsets(rank, 0), ones(rank, 1);
      offsets.back() = p.from;
      partType = "tensor<" + dimsText(partBox) + "x" + elemType + ">";
      partValue = "%kpart" + std::to_string(fresh_++);
      text_ << "    " << partValue << " = tensor.extract_slice " << value << "["
            << dimsText(offsets, ", ") << "] [" << dimsText(partBox, ", ") << "] ["
            << dimsText(ones, ", ") << "] : " << whole << " to " << partType << "\n";
    }
    std::vector<std::string> partStart = start;
    if (p.from != 0 && start.back() == "%kc0") {
      partStart.back() = constant(p.from);
    } else if (p.from != 0) {
      const std::string c = constant(p.from), s = "%kx" + std::to_string(fresh_++);
      text_ << "    " << s << " = arith.addi " << start.back() << ", " << c << " : index\n";
      partStart.back() = s;
    }
    std::vector<std::string> starts;
    std::vector<int64_t> tileShape;
    std::string groups;
    bool expand = false;
    for (size_t i = 0; i < rank; ++i) {
      FailureOr<BoxDim> b;
      if (i + 1 == rank && stick && p.count < stick) {
        // Part of one stick: that stick's coordinates, its first values.
        b = boxDim(tv.dims[i], partStart[i], stick);
        if (succeeded(b)) {
          b->sizes.back() = p.count;
          b->covered = p.count;
        }
      } else {
        b = boxDim(tv.dims[i], partStart[i], partBox[i]);
      }
      if (failed(b) || b->covered != partBox[i]) return failure();
      groups += groups.empty() ? "[" : ", [";
      for (size_t j = 0; j < b->sizes.size(); ++j) {
        groups += (j ? ", " : "") + std::to_string(tileShape.size());
        starts.push_back(b->starts[j]);
        tileShape.push_back(b->sizes[j]);
      }
      groups += "]";
      expand |= b->sizes.size() > 1;
    }
    const std::string tileT = "!ktdp.access_tile<" + dimsText(tileShape) + "xindex>";
    const std::string storeT = "tensor<" + dimsText(tileShape) + "x" + elemType + ">";
    if (expand) {
      const std::string e = "%kexp" + std::to_string(fresh_++);
      text_ << "    " << e << " = tensor.expand_shape " << partValue << " [" << groups
            << "] output_shape [" << dimsText(tileShape, ", ") << "] : " << partType << " into "
            << storeT << "\n";
      partValue = e;
    }
    std::string startText;
    for (size_t i = 0; i < starts.size(); ++i) startText += (i ? ", " : "") + starts[i];
    const std::string n = std::to_string(fresh_++);
    text_ << "    %kst" << n << " = ktdp.construct_access_tile " << view << "[" << startText
          << "] {\n      access_tile_set = " << boxSet(tileShape)
          << ", access_tile_order = " << identityMap(tileShape.size()) << "\n    } : "
          << memrefs_[view] << " -> " << tileT << "\n    ktdp.store " << partValue << ", %kst" << n
          << " : " << storeT << ", " << tileT << "\n";
  }
  return success();
}

std::pair<std::string, std::string> KernelWriter::ownTile(const ResidentBlock& r, Value v) {
  const std::vector<int64_t> shape{r.rows, r.cols};
  const std::string elemType = elem(v);
  const int64_t es = elementBytes(v);
  const std::string n = std::to_string(fresh_++);
  const std::string memref = "memref<" + dimsText(shape) + "x" + elemType + ">";
  const std::string tileT = "!ktdp.access_tile<" + dimsText(shape) + "xindex>";
  // The address counts elements of the view's type, as a pointer does.
  text_ << "    %kown" << n << " = arith.constant " << r.address / es << " : index\n"
        << "    %kownv" << n << " = ktdp.construct_memory_view %kown" << n << ", sizes: [" << r.rows
        << ", " << r.cols << "], strides: [" << r.cols
        << ", 1] {\n      coordinate_set = " << boxSet(shape)
        << ", memory_space = #ktdp.memory_space<ct_local>\n    } : " << memref << "\n    %kownt"
        << n << " = ktdp.construct_access_tile %kownv" << n
        << "[%kc0, %kc0] {\n      access_tile_set = " << boxSet(shape)
        << ", access_tile_order = " << identityMap(2) << "\n    } : " << memref << " -> " << tileT
        << "\n";
  return {"%kownt" + n, tileT};
}

std::string KernelWriter::loadOwn(const ResidentBlock& r, Value v) {
  auto [tile, tileT] = ownTile(r, v);
  const std::string value = tile + "in";
  text_ << "    " << value << " = ktdp.load " << tile << " : " << tileT << " -> tensor<" << r.rows
        << "x" << r.cols << "x" << elem(v) << ">\n";
  return value;
}

void KernelWriter::storeOwn(const std::string& value, const ResidentBlock& r, Value v) {
  auto [tile, tileT] = ownTile(r, v);
  text_ << "    ktdp.store " << value << ", " << tile << " : tensor<" << r.rows << "x" << r.cols
        << "x" << elem(v) << ">, " << tileT << "\n";
}

} // namespace chipless::frontend
