// The passes of a kernel's vector program (VectorProgram.h).
#include "VectorProgram.h"

#include <algorithm>

namespace chipless::tpuc::emitter {

VProgram planPasses(const KernelSpec& k, int64_t lanes) {
  const auto& ops = k.ops;
  const size_t n = ops.size();
  std::vector<int> pass(n, 0), ready(n, 0);
  for (size_t i = 0; i < n; ++i) {
    const VOp& o = ops[i];
    int p = 0;
    for (int x : {o.a, o.b, o.c}) {
      if (x < 0) continue;
      const VOp& src = ops[static_cast<size_t>(x)];
      if (src.kind == VKind::Const) continue;
      p = std::max(p, src.column ? ready[static_cast<size_t>(x)] : pass[static_cast<size_t>(x)]);
    }
    if (o.kind == VKind::Reduce) {
      pass[i] = pass[static_cast<size_t>(o.a)];
      ready[i] = pass[i] + 1;
    } else if (o.column) {
      ready[i] = p;
      pass[i] = p;
    } else {
      pass[i] = p;
    }
  }
  int passes = 1;
  bool any = false;
  for (size_t i = 0; i < n; ++i)
    if (ops[i].kind == VKind::Reduce) {
      passes = std::max(passes, pass[i] + 1);
      any = true;
    }
  for (size_t j = 0; j < k.outputs.size(); ++j)
    if (!fromAcc(k, j)) {
      passes = std::max(passes, pass[static_cast<size_t>(k.outputs[j].value)] + 1);
      any = true;
    }
  if (!any) passes = 0; // nothing for the vector unit to do
  // The values the reductions and outputs read, directly or through others. A per-row value
  // none of them reads is not computed (it may be ready only after the last pass).
  std::vector<bool> live(n, false);
  std::vector<int> stack;
  for (size_t i = 0; i < n; ++i)
    if (ops[i].kind == VKind::Reduce) stack.push_back(static_cast<int>(i));
  for (size_t j = 0; j < k.outputs.size(); ++j)
    if (!fromAcc(k, j)) stack.push_back(k.outputs[j].value);
  while (!stack.empty()) {
    const int v = stack.back();
    stack.pop_back();
    if (v < 0 || live[static_cast<size_t>(v)]) continue;
    live[static_cast<size_t>(v)] = true;
    const VOp& o = ops[static_cast<size_t>(v)];
    for (int x : {o.a, o.b, o.c}) stack.push_back(x);
  }
  VProgram prog;
  prog.passes.resize(static_cast<size_t>(passes));
  for (size_t i = 0; i < n; ++i) {
    const VOp& o = ops[i];
    if (o.column && !live[i]) continue;
    if (o.column && o.kind != VKind::Const) prog.columnValues.push_back(static_cast<int>(i));
    if (o.kind == VKind::Reduce)
      prog.passes[static_cast<size_t>(pass[i])].reductions.push_back(static_cast<int>(i));
    else if (o.column && o.kind != VKind::Const)
      prog.passes[static_cast<size_t>(ready[i])].columnOps.push_back(static_cast<int>(i));
  }
  for (size_t j = 0; j < k.outputs.size(); ++j)
    if (!fromAcc(k, j))
      prog.passes[static_cast<size_t>(pass[static_cast<size_t>(k.outputs[j].value)])]
          .outputs.push_back(static_cast<int>(j));
  // Tile values of each pass: the full values its roots need, in program order.
  for (VPass& p : prog.passes) {
    std::vector<bool> need(n, false);
    std::vector<int> stack;
    for (int r : p.reductions) stack.push_back(ops[static_cast<size_t>(r)].a);
    for (int j : p.outputs) stack.push_back(k.outputs[static_cast<size_t>(j)].value);
    while (!stack.empty()) {
      int v = stack.back();
      stack.pop_back();
      if (v < 0 || need[static_cast<size_t>(v)]) continue;
      const VOp& o = ops[static_cast<size_t>(v)];
      if (o.column && o.kind != VKind::Const) continue;
      need[static_cast<size_t>(v)] = true;
      for (int x : {o.a, o.b, o.c}) stack.push_back(x);
    }
    for (size_t i = 0; i < n; ++i)
      if (need[i]) p.tileValues.push_back(static_cast<int>(i));
    p.masked = !p.reductions.empty() && k.n % lanes != 0;
  }
  return prog;
}

} // namespace chipless::tpuc::emitter
