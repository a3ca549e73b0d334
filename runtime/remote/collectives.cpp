#include "runtime/remote/collectives.h"

#include "runtime/remote/codec.h"
#include "runtime/remote/protocol.h"
#include "runtime/remote/worker_loop.h"
#include "support/error.h"

#include <cstring>

namespace chipless::runtime::remote {

const char* collectiveName(CollectiveKind kind) {
  switch (kind) {
  case CollectiveKind::AllReduce:
    return "all_reduce";
  case CollectiveKind::AllGather:
    return "all_gather";
  case CollectiveKind::ReduceScatter:
    return "reduce_scatter";
  case CollectiveKind::Broadcast:
    return "broadcast";
  case CollectiveKind::Barrier:
    return "barrier";
  case CollectiveKind::Send:
    return "send";
  case CollectiveKind::Recv:
    return "recv";
  }
  return "collective";
}

const char* networkBackend(CollectiveNetwork network) {
  return network == CollectiveNetwork::Ring ? "spyre_dist" : "tpu_dist";
}

CollectiveService::~CollectiveService() = default;

namespace {

/// memcpy, but nothing at all for no bytes (an empty tensor's data may be a null pointer,
/// which memcpy may not be given even for zero bytes).
void copyBytes(void* to, const void* from, size_t n) {
  if (n > 0) std::memcpy(to, from, n);
}

/// "f32 and i32", "f16, f32 and i32": the element types `sums` accepts, for messages.
template <typename Sums>
std::string summable(const Sums& sums) {
  std::vector<std::string> names;
  for (DType t : {DType::F16, DType::BF16, DType::F32, DType::I32})
    if (sums(t)) names.push_back(dtypeName(t));
  std::string out;
  for (size_t i = 0; i < names.size(); ++i)
    out += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
  return out;
}

} // namespace

std::vector<CollectiveResult> CollectiveService::run(CollectiveKind kind, int root,
                                                     const std::vector<NpyArray>& blocks) {
  const std::string what = std::string(networkBackend(network_)) + " " + collectiveName(kind);
  const char* net = network_ == CollectiveNetwork::Ring ? "the ring" : "the ICI";
  const int n = static_cast<int>(blocks.size());
  if (n == 0) throw Error(what + ": no ranks");
  const NpyArray& first = blocks[0];
  for (int r = 1; r < n; ++r)
    if (blocks[r].dtype != first.dtype || blocks[r].shape != first.shape)
      throw Error(what +
                  (kind == CollectiveKind::Send
                       ? ": the receiver's tensor has another shape or type than the sent one"
                       : ": rank " + std::to_string(r) + " gives a " + dtypeName(blocks[r].dtype) +
                             " block of another shape or type than rank 0's"));
  if (kind == CollectiveKind::Recv) throw Error(what + ": a receive runs as its send");
  if (kind == CollectiveKind::Send && n != 2)
    throw Error(what + ": a send has a sender and a receiver");
  if (root < 0 || root >= n)
    throw Error(what + ": root " + std::to_string(root) + " is not a rank of " + std::to_string(n));
  const bool summing = kind == CollectiveKind::AllReduce || kind == CollectiveKind::ReduceScatter;
  if (summing && !sums(first.dtype))
    throw Error(what + " of " + dtypeName(first.dtype) + ": " + net + " sums " +
                summable([this](DType t) { return sums(t); }) + " (convert the tensor first)");
  if (kind == CollectiveKind::ReduceScatter && (first.shape.empty() || first.shape[0] != n))
    throw Error(what + ": each rank's input must have " + std::to_string(n) +
                " blocks along dimension 0 (one per rank)");

  // Each rank's bytes as elements of the wire type, every part padded to the network's
  // quantum. A broadcast carries only the root's block (the others' rows stay zero).
  const CollectiveKind program = programKind(kind);
  const DType wire = summing ? first.dtype : DType::I32;
  const uint64_t size = dtypeSize(wire);
  const int64_t parts = kind == CollectiveKind::ReduceScatter ? n : 1;
  const uint64_t partBytes = first.data.size() / static_cast<uint64_t>(parts);
  const int64_t elements =
      kind == CollectiveKind::Barrier ? 1 : static_cast<int64_t>((partBytes + size - 1) / size);
  if (const int64_t most = n > 1 ? maxPart(program, wire, n) : 0; most > 0 && elements > most) {
    // Slices of whole elements of both the wire type and the tensor's (8 bytes divide both).
    const uint64_t slice = static_cast<uint64_t>(most) * size / 8 * 8;
    if (slice == 0) throw Error(what + ": the network cannot move a single element");
    return runSliced(kind, root, blocks, slice);
  }
  const int64_t L = paddedPart(program, wire, n, std::max<int64_t>(elements, 1));
  const int64_t inElements = L * parts;
  NpyArray x = makeNpy(wire, {n, inElements});
  if (kind != CollectiveKind::Barrier)
    for (int r = 0; r < n; ++r) {
      if (kind == CollectiveKind::Broadcast && r != root) continue;
      for (int64_t p = 0; p < parts; ++p)
        copyBytes(x.data.data() + (static_cast<uint64_t>(r) * inElements + p * L) * size,
                  blocks[r].data.data() + p * partBytes, partBytes);
    }

  Ran ran;
  if (n == 1) {
    ran.y = x; // one rank: nothing crosses the network
    if (program == CollectiveKind::ReduceScatter) ran.y.shape = {1, L};
  } else {
    ran = launch(program, wire, x, L);
  }
  const NpyArray& y = ran.y;
  const int64_t outElements = y.shape.at(1);
  std::vector<CollectiveResult> out(n);
  for (int r = 0; r < n; ++r) {
    CollectiveResult& res = out[r];
    res.cycles = ran.cycles;
    res.seconds = ran.seconds;
    const uint8_t* row = y.data.data() + static_cast<uint64_t>(r) * outElements * size;
    if (kind == CollectiveKind::Barrier || (kind == CollectiveKind::Send && r == 0)) {
      res.block = makeNpy(kind == CollectiveKind::Send ? first.dtype : DType::I32, {0});
      continue;
    }
    if (kind == CollectiveKind::AllGather) {
      std::vector<int64_t> shape{n};
      shape.insert(shape.end(), first.shape.begin(), first.shape.end());
      res.block = makeNpy(first.dtype, shape);
      for (int q = 0; q < n; ++q)
        copyBytes(res.block.data.data() + q * partBytes, row + static_cast<uint64_t>(q) * L * size,
                  partBytes);
      continue;
    }
    std::vector<int64_t> shape = first.shape;
    if (kind == CollectiveKind::ReduceScatter) shape.erase(shape.begin());
    res.block = makeNpy(first.dtype, shape);
    const bool gathered = kind == CollectiveKind::Broadcast && program == CollectiveKind::AllGather;
    const uint8_t* from = gathered ? row + static_cast<uint64_t>(root) * L * size : row;
    copyBytes(res.block.data.data(), from, partBytes);
  }
  return out;
}

std::vector<CollectiveResult> CollectiveService::runSliced(CollectiveKind kind, int root,
                                                           const std::vector<NpyArray>& blocks,
                                                           uint64_t sliceBytes) {
  const int n = static_cast<int>(blocks.size());
  const NpyArray& first = blocks[0];
  const uint64_t parts = kind == CollectiveKind::ReduceScatter ? n : 1;
  const uint64_t partBytes = first.data.size() / parts;
  const uint64_t element = dtypeSize(first.dtype);
  // Every rank's result, shaped as one launch would give it.
  std::vector<CollectiveResult> out(n);
  for (int r = 0; r < n; ++r) {
    std::vector<int64_t> shape = first.shape;
    if (kind == CollectiveKind::ReduceScatter) shape.erase(shape.begin());
    if (kind == CollectiveKind::AllGather) shape.insert(shape.begin(), n);
    if (kind == CollectiveKind::Send && r == 0) shape = {0};
    out[r].block = makeNpy(first.dtype, shape);
  }
  const uint64_t gathered = kind == CollectiveKind::AllGather ? n : 1; // blocks in a result
  for (uint64_t at = 0; at < partBytes; at += sliceBytes) {
    const uint64_t bytes = std::min(sliceBytes, partBytes - at);
    std::vector<NpyArray> slices;
    for (const NpyArray& b : blocks) {
      std::vector<int64_t> shape{static_cast<int64_t>(bytes / element)};
      if (kind == CollectiveKind::ReduceScatter) shape.insert(shape.begin(), n);
      NpyArray s = makeNpy(first.dtype, shape);
      for (uint64_t p = 0; p < parts; ++p)
        std::memcpy(s.data.data() + p * bytes, b.data.data() + p * partBytes + at, bytes);
      slices.push_back(std::move(s));
    }
    std::vector<CollectiveResult> ran = run(kind, root, slices);
    for (int r = 0; r < n; ++r) {
      out[r].cycles += ran[r].cycles;
      out[r].seconds += ran[r].seconds;
      if (out[r].block.data.empty()) continue;
      for (uint64_t q = 0; q < gathered; ++q)
        std::memcpy(out[r].block.data.data() + q * partBytes + at,
                    ran[r].block.data.data() + q * bytes, bytes);
    }
  }
  return out;
}

int serveCollectives(int fd, CollectiveService& service, const std::string& name) {
  return answerUntilClosed(fd, name, [&](const Message& request) {
    if (request.opcode != Opcode::RunCollective)
      throw Error(name + ": " + opcodeName(static_cast<uint16_t>(request.opcode)) +
                  " is not a collective");
    WireReader r(request.payload, "RunCollective request");
    auto kind = static_cast<CollectiveKind>(r.get<uint8_t>("kind"));
    int root = static_cast<int>(r.get<uint32_t>("root"));
    std::vector<NpyArray> blocks(r.getCount("blocks", 13));
    for (auto& b : blocks) b = getArray(r, "block");
    r.expectEnd();
    std::vector<CollectiveResult> results = service.run(kind, root, blocks);
    WireWriter w;
    w.put<uint32_t>(static_cast<uint32_t>(results.size()));
    for (const auto& res : results) putArray(w, res.block);
    w.put<double>(results.at(0).seconds);
    w.put<double>(results.at(0).cycles);
    return w.take();
  });
}

} // namespace chipless::runtime::remote
