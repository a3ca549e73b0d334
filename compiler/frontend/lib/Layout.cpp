//===- Layout.cpp - where a graph's tensors lie in device memory ----------===//
//
// Part of chipless. See Layout.h.
//
//===----------------------------------------------------------------------===//

#include "Layout.h"

#include "support/stick_columns.h"

#include <numeric>
#include <sstream>

namespace chipless::frontend {

int64_t DimLayout::covered() const {
  int64_t n = 1;
  for (const Factor& f : factors) n *= f.size;
  return n;
}

std::vector<int64_t> TensorView::shape() const {
  std::vector<int64_t> s;
  for (const DimLayout& d : dims) s.push_back(d.size);
  return s;
}

std::string TensorView::describe() const {
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i < dims.size(); ++i) os << (i ? " x " : "") << dims[i].size;
  os << "]:";
  for (const DimLayout& d : dims) {
    os << " (";
    for (size_t i = 0; i < d.factors.size(); ++i)
      os << (i ? " " : "") << d.factors[i].size << ":" << d.factors[i].stride;
    os << ")";
  }
  os << " +" << offset;
  return os.str();
}

namespace {

/// Drops factors of one position, merges neighbours that are one stride apart; a dimension
/// left with one factor holds exactly its elements.
void simplify(DimLayout& d) {
  std::vector<Factor> out;
  for (const Factor& f : d.factors) {
    if (f.size == 1) continue;
    if (!out.empty() && out.back().stride == f.size * f.stride) {
      out.back() = {out.back().size * f.size, f.stride};
      continue;
    }
    out.push_back(f);
  }
  if (out.empty()) out.push_back({1, 1});
  d.factors = std::move(out);
  if (d.factors.size() == 1) d.factors[0].size = d.size;
}

/// The dimensions of a root of `shape` in `layout`, in its own order.
TensorView standard(mlir::Value root, llvm::ArrayRef<int64_t> shape, RootLayout layout,
                    int64_t stickElems, int64_t paddedRows) {
  TensorView v;
  v.root = root;
  const size_t rank = shape.size();
  for (size_t i = 0; i < rank; ++i) {
    DimLayout d;
    d.size = shape[i];
    int64_t inner = 1;
    if (layout == RootLayout::Flat) {
      for (size_t j = i + 1; j < rank; ++j) inner *= shape[j];
      d.factors = {{shape[i], inner}};
    } else if (i + 1 < rank) {
      for (size_t j = i + 1; j + 1 < rank; ++j) inner *= shape[j];
      d.factors = {{shape[i], inner * stickElems}};
    } else {
      int64_t rows = 1;
      for (size_t j = 0; j + 1 < rank; ++j) rows *= shape[j];
      if (paddedRows) rows = paddedRows;
      const int64_t sticks = (shape[i] + stickElems - 1) / stickElems;
      d.factors = {{sticks, rows * stickElems}, {stickElems, 1}};
    }
    simplify(d);
    v.dims.push_back(d);
  }
  return v;
}

/// For each dimension of `from`, the dimensions of `to` (more of them) whose product it is.
std::optional<std::vector<llvm::SmallVector<int64_t, 2>>> expansionOf(llvm::ArrayRef<int64_t> from,
                                                                      llvm::ArrayRef<int64_t> to) {
  std::vector<llvm::SmallVector<int64_t, 2>> groups;
  size_t j = 0;
  for (int64_t d : from) {
    llvm::SmallVector<int64_t, 2> g;
    int64_t p = 1;
    while (j < to.size() && (g.empty() || p < d)) {
      p *= to[j];
      g.push_back(static_cast<int64_t>(j++));
    }
    if (p != d) return std::nullopt;
    groups.push_back(g);
  }
  // Trailing dimensions of one element join the last group.
  for (; j < to.size(); ++j) {
    if (to[j] != 1 || groups.empty()) return std::nullopt;
    groups.back().push_back(static_cast<int64_t>(j));
  }
  return groups;
}

/// The one dimension of `dims` (indices into `all`) with more than one element, if there is
/// only one; -1 when several have.
int64_t onlyWide(const std::vector<DimLayout>& all, llvm::ArrayRef<int64_t> dims) {
  int64_t wide = -2;
  for (int64_t i : dims)
    if (all[static_cast<size_t>(i)].size != 1) wide = wide == -2 ? i : -1;
  return wide == -2 ? dims.front() : wide;
}

} // namespace

std::optional<TensorView> rootView(mlir::Value root, llvm::ArrayRef<int64_t> shape,
                                   llvm::ArrayRef<int64_t> layoutShape, RootLayout layout,
                                   int64_t stickElems, int64_t paddedRows) {
  TensorView v = standard(root, layoutShape, layout, stickElems, paddedRows);
  if (shape == layoutShape) return v;
  if (shape.size() > layoutShape.size()) {
    auto groups = expansionOf(layoutShape, shape);
    if (!groups) return std::nullopt;
    return reshapeView(v, shape, *groups, /*expand=*/true);
  }
  auto groups = expansionOf(shape, layoutShape);
  if (!groups) return std::nullopt;
  return reshapeView(v, shape, *groups, /*expand=*/false);
}

int64_t rootElements(llvm::ArrayRef<int64_t> shape, RootLayout layout, int64_t stickElems,
                     int64_t paddedRows) {
  int64_t rows = 1;
  for (size_t i = 0; i + 1 < shape.size(); ++i) rows *= shape[i];
  const int64_t cols = shape.empty() ? 1 : shape.back();
  if (layout == RootLayout::Flat) return rows * cols;
  if (paddedRows) rows = paddedRows;
  return rows * ((cols + stickElems - 1) / stickElems) * stickElems;
}

int64_t paddedRows(int64_t rows, int64_t sticks, const MemoryParams& memory) {
  return stickColumnRows(rows, sticks, memory.stickBytes, memory.interleaveBytes, memory.channels);
}

std::optional<TensorView> reshapeView(const TensorView& v, llvm::ArrayRef<int64_t> shape,
                                      llvm::ArrayRef<llvm::SmallVector<int64_t, 2>> groups,
                                      bool expand) {
  TensorView out;
  out.root = v.root;
  out.offset = v.offset;
  out.dims.resize(shape.size());
  if (expand) {
    for (size_t j = 0; j < groups.size(); ++j) {
      const DimLayout& src = v.dims[j];
      auto g = groups[j];
      for (int64_t i : g) {
        out.dims[static_cast<size_t>(i)].size = shape[static_cast<size_t>(i)];
        out.dims[static_cast<size_t>(i)].factors = {{1, 1}};
      }
      // Only one dimension of the group is wide: it is the source dimension as it lies.
      int64_t wide = onlyWide(out.dims, g);
      if (wide >= 0) {
        out.dims[static_cast<size_t>(wide)] = src;
        continue;
      }
      if (!src.exact()) return std::nullopt;
      // Split the factors, innermost first.
      std::vector<Factor> f = src.factors;
      for (size_t k = g.size(); k-- > 0;) {
        DimLayout& d = out.dims[static_cast<size_t>(g[k])];
        std::vector<Factor> taken;
        int64_t need = d.size;
        while (need > 1) {
          if (f.empty()) return std::nullopt;
          Factor& in = f.back();
          if (in.size <= need && need % in.size == 0) {
            taken.push_back(in);
            need /= in.size;
            f.pop_back();
          } else if (in.size % need == 0) {
            taken.push_back({need, in.stride});
            in = {in.size / need, in.stride * need};
            need = 1;
          } else {
            return std::nullopt;
          }
        }
        d.factors.assign(taken.rbegin(), taken.rend());
        if (d.factors.empty()) d.factors = {{1, 1}};
      }
      for (const Factor& rest : f)
        if (rest.size != 1) return std::nullopt;
    }
  } else {
    for (size_t i = 0; i < groups.size(); ++i) {
      auto g = groups[i];
      DimLayout& d = out.dims[i];
      d.size = shape[i];
      int64_t wide = onlyWide(v.dims, g);
      if (wide >= 0) {
        d = v.dims[static_cast<size_t>(wide)];
        d.size = shape[i];
        continue;
      }
      d.factors.clear();
      for (int64_t j : g) {
        const DimLayout& src = v.dims[static_cast<size_t>(j)];
        if (!src.exact()) return std::nullopt;
        d.factors.insert(d.factors.end(), src.factors.begin(), src.factors.end());
      }
    }
  }
  for (DimLayout& d : out.dims) simplify(d);
  return out;
}

TensorView permuteView(const TensorView& v, llvm::ArrayRef<int64_t> perm) {
  TensorView out;
  out.root = v.root;
  out.offset = v.offset;
  for (int64_t p : perm) out.dims.push_back(v.dims[static_cast<size_t>(p)]);
  return out;
}

TensorView swapLastTwo(const TensorView& v) {
  TensorView out = v;
  std::swap(out.dims[out.dims.size() - 1], out.dims[out.dims.size() - 2]);
  return out;
}

std::optional<TensorView> sliceView(const TensorView& v, llvm::ArrayRef<int64_t> offsets,
                                    llvm::ArrayRef<int64_t> sizes,
                                    llvm::ArrayRef<int64_t> strides) {
  TensorView out = v;
  for (size_t i = 0; i < out.dims.size(); ++i) {
    DimLayout& d = out.dims[i];
    const int64_t o = offsets[i], n = sizes[i], s = strides[i];
    if (d.factors.size() == 1) {
      out.offset += o * d.factors[0].stride;
      d.factors[0] = {n, d.factors[0].stride * s};
      d.size = n;
      continue;
    }
    if (s != 1 && n > 1) return std::nullopt;
    // Whole sticks of the outer factor. A slice that starts inside a stick is not a box of
    // sticks: the kernels' compute ops read blocks from the start of a stick (the caller
    // packs the source first).
    int64_t inner = 1;
    for (size_t k = 1; k < d.factors.size(); ++k) inner *= d.factors[k].size;
    if (o % inner != 0) return std::nullopt;
    out.offset += (o / inner) * d.factors[0].stride;
    d.factors[0].size = (n + inner - 1) / inner;
    d.size = n;
    simplify(d);
  }
  return out;
}

bool blockFits(const DimLayout& d, int64_t n) {
  if (d.factors.size() == 1 || n == d.size) return true;
  int64_t rest = n;
  for (size_t i = d.factors.size(); i-- > 0;) {
    const int64_t size = d.factors[i].size;
    if (i > 0 && rest >= size) {
      if (rest % size != 0) return false;
      rest /= size;
      continue;
    }
    return rest <= size && (i == 0 || size % rest == 0);
  }
  return true;
}

std::optional<TensorView> matrixView(const TensorView& v) {
  if (v.dims.empty()) return std::nullopt;
  TensorView out;
  out.root = v.root;
  out.offset = v.offset;
  DimLayout rows;
  rows.size = 1;
  for (size_t i = 0; i + 1 < v.dims.size(); ++i) {
    const DimLayout& d = v.dims[i];
    if (!d.exact()) return std::nullopt;
    rows.size *= d.size;
    rows.factors.insert(rows.factors.end(), d.factors.begin(), d.factors.end());
  }
  simplify(rows);
  if (rows.factors.size() != 1) return std::nullopt;
  const DimLayout& cols = v.dims.back();
  if (cols.factors.back().stride != 1 || cols.factors.size() > 2) return std::nullopt;
  out.dims = {rows, cols};
  return out;
}

std::optional<TensorView> vectorView(const TensorView& v) {
  TensorView out;
  out.root = v.root;
  out.offset = v.offset;
  DimLayout all;
  all.size = 1;
  std::vector<int64_t> indices;
  for (size_t i = 0; i < v.dims.size(); ++i) indices.push_back(static_cast<int64_t>(i));
  int64_t wide = indices.empty() ? -1 : onlyWide(v.dims, indices);
  if (wide >= 0) {
    all = v.dims[static_cast<size_t>(wide)];
  } else {
    for (const DimLayout& d : v.dims) {
      if (!d.exact()) return std::nullopt;
      all.size *= d.size;
      all.factors.insert(all.factors.end(), d.factors.begin(), d.factors.end());
    }
  }
  std::vector<Factor> merged;
  for (const Factor& f : all.factors) {
    if (f.size == 1) continue;
    if (!merged.empty() && merged.back().stride == f.size * f.stride)
      merged.back() = {merged.back().size * f.size, f.stride};
    else
      merged.push_back(f);
  }
  if (merged.size() > 1) return std::nullopt;
  if (merged.empty()) merged.push_back({1, 1});
  merged[0].size = all.size;
  all.factors = merged;
  out.dims = {all};
  return out;
}

} // namespace chipless::frontend
