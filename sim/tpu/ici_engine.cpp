#include "sim/tpu/ici_engine.h"

#include "sim/tpu/system.h"
#include "support/error.h"
#include "support/numerics.h"
#include "support/tpuprog/plan.h"

#include <algorithm>
#include <cstring>

namespace chipless::sim::tpu {

using tpuprog::Opcode;

namespace {

const char* kindName(Opcode k) {
  return k == Opcode::IciAllReduce   ? "all-reduce"
         : k == Opcode::IciAllGather ? "all-gather"
                                     : "reduce-scatter";
}

/// dst[i] += src[i] for `bytes` of elements of `type` (bf16 adds in fp32 and rounds).
void reduceAdd(DType type, uint8_t* dst, const uint8_t* src, int64_t bytes) {
  switch (type) {
  case DType::F32:
    for (int64_t i = 0; i < bytes; i += 4) {
      float a, b;
      std::memcpy(&a, dst + i, 4);
      std::memcpy(&b, src + i, 4);
      a += b;
      std::memcpy(dst + i, &a, 4);
    }
    return;
  case DType::BF16:
    for (int64_t i = 0; i < bytes; i += 2) {
      uint16_t a, b;
      std::memcpy(&a, dst + i, 2);
      std::memcpy(&b, src + i, 2);
      uint16_t r = floatToBf16(bf16ToFloat(a) + bf16ToFloat(b));
      std::memcpy(dst + i, &r, 2);
    }
    return;
  case DType::I32:
    for (int64_t i = 0; i < bytes; i += 4) {
      uint32_t a, b;
      std::memcpy(&a, dst + i, 4);
      std::memcpy(&b, src + i, 4);
      a += b;
      std::memcpy(dst + i, &a, 4);
    }
    return;
  default:
    return;
  }
}

} // namespace

IciEngine::IciEngine(sc_core::sc_module_name name, System& system, int chip)
    : Unit(name, system, "chip " + std::to_string(chip) + " ici", (1 << 20) + chip), chip_(chip) {
  SC_THREAD(thread);
}

void IciEngine::arm(Cycles start) {
  armThread(false, start);
  queue_.clear();
  mailbox_.clear();
  seq_ = 0;
  collectives = 0;
  bytesSent = 0;
  busyCycles = 0;
}

void IciEngine::submit(const CollectiveRequest& request) {
  queue_.push_back(request);
  queued_.notify(sc_core::SC_ZERO_TIME);
}

void IciEngine::deliver(int seq, int phase, int step, int from, Cycles arrival,
                        std::vector<uint8_t> data, int64_t bytes) {
  mailbox_[{seq, phase, step}] = {arrival, std::move(data), bytes, from};
  delivered_.notify(sc_core::SC_ZERO_TIME);
}

void IciEngine::thread() {
  while (true) {
    // Idle: wait on one event (not an or-list, which a deleted kernel context would leak);
    // an abort has nothing to cancel while the queue is empty.
    while (queue_.empty()) wait(queued_);
    CollectiveRequest r = queue_.front();
    queue_.pop_front();
    if (system_.aborting()) {
      queue_.clear();
      continue;
    }
    state_ = State::Running; // inside a collective: a deadlock report lists it
    try {
      run(r);
      state_ = State::Idle;
    } catch (const LaunchAborted&) {
      state_ = State::Aborted;
      queue_.clear();
    } catch (const Error& e) {
      state_ = State::Failed;
      queue_.clear();
      system_.reportFault(e.what());
    }
  }
}

void IciEngine::fault(const CollectiveRequest& r, const std::string& message) const {
  throw Error(label() + " (" + kindName(r.kind) + " issued by " + r.issuer->label() + " pc " +
              std::to_string(r.pc) + "): " + message);
}

void IciEngine::send(int seq, int phase, int step, const uint8_t* data, int64_t bytes) {
  IciNetwork& net = system_.ici();
  const int n = net.chips();
  const int next = net.ringOrder()[(net.ringPosition(chip_) + 1) % n];
  std::vector<Timeline*> path = net.route(chip_, next);
  Cycles arrival = local_;
  if (bytes > 0 && !path.empty())
    reserveShared([&] {
      arrival =
          quantize(reservePath(system_.now(), local_, static_cast<double>(bytes), path, &starts_));
      if (system_.tracing())
        for (size_t i = 0; i < path.size(); ++i)
          system_.traceResource(starts_[i], static_cast<double>(bytes), *path[i],
                                system_.iciTracePid());
    });
  std::vector<uint8_t> copy;
  if (!system_.timingOnly() && data) copy.assign(data, data + bytes);
  bytesSent += static_cast<double>(bytes);
  system_.iciEngine(next).deliver(seq, phase, step, chip_, arrival, std::move(copy), bytes);
}

IciEngine::Message IciEngine::receive(int seq, int phase, int step, int64_t bytes,
                                      const char* what) {
  IciNetwork& net = system_.ici();
  const int n = net.chips();
  const int prev = net.ringOrder()[(net.ringPosition(chip_) + n - 1) % n];
  auto key = std::make_tuple(seq, phase, step);
  auto it = mailbox_.find(key);
  while (it == mailbox_.end()) {
    block(delivered_, std::string(what) + " #" + std::to_string(seq) + " step " +
                          std::to_string(phase * (n - 1) + step) + ": data from chip " +
                          std::to_string(prev) + " (has chip " + std::to_string(prev) +
                          " issued the same collective?)");
    it = mailbox_.find(key);
  }
  Message m = std::move(it->second);
  mailbox_.erase(it);
  if (m.bytes != bytes)
    throw Error(label() + ": " + what + " #" + std::to_string(seq) + ": chip " +
                std::to_string(m.from) + " sent " + std::to_string(m.bytes) + " bytes where " +
                std::to_string(bytes) +
                " were expected; every chip must issue the same collectives with the same sizes");
  return m;
}

void IciEngine::run(const CollectiveRequest& r) {
  IciNetwork& net = system_.ici();
  const int n = net.chips();
  const int p = net.ringPosition(chip_);
  const auto& ring = net.ringOrder();
  const int seq = seq_++;
  const bool fn = !system_.timingOnly();
  const char* what = kindName(r.kind);
  ++collectives;
  local_ = std::max(local_, r.issued);
  const Cycles begin = local_;
  DeviceMemory& memory = system_.memory(chip_);
  const int64_t chips = n;
  const int64_t srcBytes = r.kind == Opcode::IciReduceScatter ? chips * r.bytes : r.bytes;
  const int64_t dstBytes = r.kind == Opcode::IciAllGather ? chips * r.bytes : r.bytes;
  uint8_t* src = memory.span(r.src, static_cast<uint64_t>(srcBytes));
  uint8_t* dst = memory.span(r.dst, static_cast<uint64_t>(dstBytes));
  if (!src || !dst) fault(r, "source or destination no longer allocated");
  auto mod = [n](int x) { return ((x % n) + n) % n; };

  if (r.kind == Opcode::IciAllReduce) {
    // Reduce-scatter then all-gather around the ring, the vector cut into n chunks of whole
    // elements.
    const int64_t esize = static_cast<int64_t>(dtypeSize(r.type));
    const int64_t elems = r.bytes / esize;
    auto off = [&](int j) { return elems * j / n * esize; };
    auto len = [&](int j) { return off(j + 1) - off(j); };
    if (fn && src != dst) std::memmove(dst, src, static_cast<size_t>(r.bytes));
    for (int t = 0; t + 1 < n; ++t) {
      int s = mod(p - t), v = mod(p - t - 1);
      send(seq, 0, t, fn ? dst + off(s) : nullptr, len(s));
      Message m = receive(seq, 0, t, len(v), what);
      local_ = std::max(local_, m.arrival);
      if (fn) reduceAdd(r.type, dst + off(v), m.data.data(), len(v));
    }
    for (int t = 0; t + 1 < n; ++t) {
      int s = mod(p + 1 - t), v = mod(p - t);
      send(seq, 1, t, fn ? dst + off(s) : nullptr, len(s));
      Message m = receive(seq, 1, t, len(v), what);
      local_ = std::max(local_, m.arrival);
      if (fn) std::memcpy(dst + off(v), m.data.data(), static_cast<size_t>(len(v)));
    }
  } else if (r.kind == Opcode::IciAllGather) {
    // Block c of dst is chip c's source; blocks travel around the ring.
    if (fn) std::memmove(dst + chip_ * r.bytes, src, static_cast<size_t>(r.bytes));
    for (int t = 0; t + 1 < n; ++t) {
      int s = ring[mod(p - t)], v = ring[mod(p - t - 1)];
      send(seq, 0, t, fn ? dst + s * r.bytes : nullptr, r.bytes);
      Message m = receive(seq, 0, t, r.bytes, what);
      local_ = std::max(local_, m.arrival);
      if (fn) std::memcpy(dst + v * r.bytes, m.data.data(), static_cast<size_t>(r.bytes));
    }
  } else {
    // Reduce-scatter: partial sums travel so that chip ring[p] ends with block ring[p].
    std::vector<uint8_t> acc;
    if (fn) acc.assign(src, src + srcBytes);
    for (int t = 0; t + 1 < n; ++t) {
      int s = ring[mod(p - t - 1)], v = ring[mod(p - t - 2)];
      send(seq, 0, t, fn ? acc.data() + s * r.bytes : nullptr, r.bytes);
      Message m = receive(seq, 0, t, r.bytes, what);
      local_ = std::max(local_, m.arrival);
      if (fn) reduceAdd(r.type, acc.data() + v * r.bytes, m.data.data(), r.bytes);
    }
    if (fn) std::memcpy(dst, acc.data() + chip_ * r.bytes, static_cast<size_t>(r.bytes));
  }
  busyCycles += local_ - begin;
  if (r.sem >= 0) r.issuer->semaphores().send(static_cast<int>(r.sem), local_);
  r.issuer->collectiveDone(local_);
  system_.noteActivity(local_);
  if (system_.tracing())
    system_.traceSpan(system_.tracePid(chip_, 0), system_.trackIci(), std::string("ici.") + what,
                      begin, local_, static_cast<int64_t>(r.pc));
}

} // namespace chipless::sim::tpu
