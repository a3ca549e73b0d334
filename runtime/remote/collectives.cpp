#include "runtime/remote/collectives.h"

#include "runtime/remote/codec.h"
#include "runtime/remote/protocol.h"
#include "runtime/remote/worker_loop.h"
#include "support/error.h"
#include "support/tpu_arch.h"
#include "support/tpuprog/assembler.h"
#include "support/tpuprog/directory.h"

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <unistd.h>

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

struct CollectiveService::System {
  std::unique_ptr<Device> device;
  std::map<std::pair<int, DType>, std::unique_ptr<Program>> programs;
};

CollectiveService::CollectiveService(ArchDescription arch, int firstIndex,
                                     std::string workDirectory)
    : arch_(std::move(arch)), firstIndex_(firstIndex), workDirectory_(std::move(workDirectory)) {}

CollectiveService::~CollectiveService() = default;

CollectiveService::System& CollectiveService::system(int chips) {
  auto& s = systems_[chips];
  if (!s) {
    auto fresh = std::make_unique<System>();
    DeviceOptions o;
    o.chips = chips;
    o.index = firstIndex_ + chips;
    fresh->device = Device::openLocal(ChipKind::Tpu, arch_, o);
    s = std::move(fresh);
  }
  return *s;
}

namespace {

/// The program of one collective over `t` elements (f32 or i32): X split over the chips, Y
/// split likewise; L is a block's words, M the words of size blocks.
std::string programText(CollectiveKind kind, const char* t) {
  std::string T = t;
  switch (kind) {
  case CollectiveKind::AllGather:
    return ".kernel ici_all_gather\n.scalar L\n.scalar M\n"
           ".input  X " +
           T + " [1, L] placement=split\n.output Y " + T +
           " [1, M] placement=split\n"
           ".program cores=0\n    shl s1, @X.p1, 2\n"
           "    ici.allgather src=@X, dst=@Y, bytes=s1, sem=0\n    sem.wait 0\n.end\n";
  case CollectiveKind::ReduceScatter:
    return ".kernel ici_reduce_scatter\n.scalar L\n.scalar M\n"
           ".input  X " +
           T + " [1, M] placement=split\n.output Y " + T +
           " [1, L] placement=split\n"
           ".program cores=0\n    shl s1, @Y.p1, 2\n"
           "    ici.reducescatter." +
           T + " src=@X, dst=@Y, bytes=s1, sem=0\n    sem.wait 0\n.end\n";
  case CollectiveKind::Send:
    // Chip 0 writes its block into chip 1's Y; chip 1 waits for it to arrive.
    return ".kernel ici_send\n.scalar L\n"
           ".input  X " +
           T + " [1, L] placement=split\n.output Y " + T +
           " [1, L] placement=split\n"
           ".program chips=0 cores=0\n    shl s1, @X.p1, 2\n"
           "    ici.send chip=1, dst=@Y, src=@X, bytes=s1, sem=0, done=0\n    sem.wait 0\n.end\n"
           ".program chips=1 cores=0\n    sem.wait 0\n.end\n";
  default:
    return ".kernel ici_all_reduce\n.scalar L\n"
           ".input  X " +
           T + " [1, L] placement=split\n.output Y " + T +
           " [1, L] placement=split\n"
           ".program cores=0\n    shl s1, @X.p1, 2\n"
           "    ici.allreduce." +
           T + " src=@X, dst=@Y, bytes=s1, sem=0\n    sem.wait 0\n.end\n";
  }
}

/// Which program a collective runs: a broadcast gathers (every rank then keeps the root's
/// block), a barrier reduces one row.
CollectiveKind programKind(CollectiveKind kind) {
  if (kind == CollectiveKind::Broadcast) return CollectiveKind::AllGather;
  if (kind == CollectiveKind::Barrier) return CollectiveKind::AllReduce;
  return kind;
}

/// memcpy, but nothing at all for no bytes (an empty tensor's data may be a null pointer,
/// which memcpy may not be given even for zero bytes).
void copyBytes(void* to, const void* from, size_t n) {
  if (n > 0) std::memcpy(to, from, n);
}

int64_t roundUp(int64_t v, int64_t m) {
  return (v + m - 1) / m * m;
}

} // namespace

Program& CollectiveService::program(System& s, CollectiveKind kind, DType dtype, int64_t) {
  auto key = std::make_pair(static_cast<int>(programKind(kind)), dtype);
  auto& p = s.programs[key];
  if (!p) {
    const char* t = dtype == DType::F32 ? "f32" : "i32";
    std::string name = std::string(collectiveName(programKind(kind))) + "-" + t + "-" +
                       std::to_string(s.device->chips());
    std::string text = programText(programKind(kind), t);
    TpuArch arch = TpuArch::fromDescription(arch_);
    tpuprog::Job job =
        tpuprog::assemble(text, name + ".s", tpuprog::AssembleOptions::forArch(arch));
    std::string dir = workDirectory_ + "/" + name;
    tpuprog::writeJob(dir, job);
    p = s.device->prepare(dir + "/job.plan");
  }
  return *p;
}

std::vector<CollectiveResult> CollectiveService::run(CollectiveKind kind, int root,
                                                     const std::vector<NpyArray>& blocks) {
  const std::string what = std::string("tpu_dist ") + collectiveName(kind);
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
  const bool sums = kind == CollectiveKind::AllReduce || kind == CollectiveKind::ReduceScatter;
  if (sums && first.dtype != DType::F32 && first.dtype != DType::I32)
    throw Error(what + " of " + dtypeName(first.dtype) +
                ": the ICI sums f32 and i32 (convert the tensor first)");
  if (kind == CollectiveKind::ReduceScatter && (first.shape.empty() || first.shape[0] != n))
    throw Error(what + ": each rank's input must have " + std::to_string(n) +
                " blocks along dimension 0 (one per rank)");

  // Each rank's bytes as 32-bit words, every block padded to whole rows of lanes.
  const DType wire = sums ? first.dtype : DType::I32;
  const int64_t parts = kind == CollectiveKind::ReduceScatter ? n : 1;
  const uint64_t partBytes = first.data.size() / static_cast<uint64_t>(parts);
  const int64_t words =
      kind == CollectiveKind::Barrier ? 1 : static_cast<int64_t>((partBytes + 3) / 4);
  const int64_t lanes = arch_.getInt("vpu.lanes");
  const int64_t L = roundUp(std::max<int64_t>(words, 1), lanes);
  const int64_t inWords = L * parts;
  NpyArray x = makeNpy(wire, {n, inWords});
  if (kind != CollectiveKind::Barrier)
    for (int r = 0; r < n; ++r)
      for (int64_t p = 0; p < parts; ++p)
        copyBytes(x.data.data() + (static_cast<uint64_t>(r) * inWords + p * L) * 4,
                  blocks[r].data.data() + p * partBytes, partBytes);

  CollectiveResult base;
  std::vector<CollectiveResult> out(n);
  NpyArray y;
  if (n == 1) {
    y = x; // one rank: nothing crosses the ICI
    if (programKind(kind) == CollectiveKind::ReduceScatter) y.shape = {1, L};
  } else {
    System& s = system(n);
    LaunchArgs args;
    args.inputs = {{"X", x}};
    if (programKind(kind) == CollectiveKind::AllGather) args.scalars = {{"M", L * n}};
    if (programKind(kind) == CollectiveKind::ReduceScatter) args.scalars = {{"L", L}};
    args.statistics = false;
    LaunchReport report = s.device->launch(program(s, kind, wire, L), args);
    y = report.outputs.at("Y");
    base.cycles = report.cycles;
    base.seconds = report.cycles / (arch_.getFloat("chip.clock_ghz") * 1e9);
  }
  const int64_t outWords = y.shape.at(1);
  for (int r = 0; r < n; ++r) {
    CollectiveResult& res = out[r];
    res.cycles = base.cycles;
    res.seconds = base.seconds;
    const uint8_t* row = y.data.data() + static_cast<uint64_t>(r) * outWords * 4;
    if (kind == CollectiveKind::Barrier || (kind == CollectiveKind::Send && r == 0)) {
      res.block = makeNpy(kind == CollectiveKind::Send ? first.dtype : DType::I32, {0});
      continue;
    }
    if (kind == CollectiveKind::AllGather) {
      std::vector<int64_t> shape{n};
      shape.insert(shape.end(), first.shape.begin(), first.shape.end());
      res.block = makeNpy(first.dtype, shape);
      for (int q = 0; q < n; ++q)
        copyBytes(res.block.data.data() + q * partBytes, row + static_cast<uint64_t>(q) * L * 4,
                  partBytes);
      continue;
    }
    std::vector<int64_t> shape = first.shape;
    if (kind == CollectiveKind::ReduceScatter) shape.erase(shape.begin());
    res.block = makeNpy(first.dtype, shape);
    const uint8_t* from =
        kind == CollectiveKind::Broadcast ? row + static_cast<uint64_t>(root) * L * 4 : row;
    copyBytes(res.block.data.data(), from, partBytes);
  }
  return out;
}

int serveCollectives(int fd, const ArchDescription& arch) {
  WorkDirectory work("ici");
  // The systems take device numbers from 1000 up, apart from the server's devices.
  CollectiveService service(arch, 1000, work.path());
  return answerUntilClosed(fd, "ICI worker", [&](const Message& request) {
    if (request.opcode != Opcode::RunCollective)
      throw Error("ICI worker: " + opcodeName(static_cast<uint16_t>(request.opcode)) +
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
