#include "runtime/remote/ici_collectives.h"

#include "support/tpu_arch.h"
#include "support/tpuprog/assembler.h"
#include "support/tpuprog/directory.h"

namespace chipless::runtime::remote {

struct IciCollectives::System {
  std::unique_ptr<Device> device;
  std::map<std::pair<int, DType>, std::unique_ptr<Program>> programs;
};

IciCollectives::IciCollectives(ArchDescription arch, int firstIndex, std::string workDirectory)
    : CollectiveService(CollectiveNetwork::Ici), arch_(std::move(arch)), firstIndex_(firstIndex),
      workDirectory_(std::move(workDirectory)) {}

IciCollectives::~IciCollectives() = default;

bool IciCollectives::sums(DType dtype) const {
  return dtype == DType::F32 || dtype == DType::I32;
}

/// A broadcast gathers (every rank then keeps the root's block), a barrier reduces one row.
CollectiveKind IciCollectives::programKind(CollectiveKind kind) const {
  if (kind == CollectiveKind::Broadcast) return CollectiveKind::AllGather;
  if (kind == CollectiveKind::Barrier) return CollectiveKind::AllReduce;
  return kind;
}

/// Whole rows of the vector unit's lanes.
int64_t IciCollectives::paddedPart(CollectiveKind, DType, int, int64_t elements) const {
  const int64_t lanes = arch_.getInt("vpu.lanes");
  return (elements + lanes - 1) / lanes * lanes;
}

IciCollectives::System& IciCollectives::system(int chips) {
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

} // namespace

Program& IciCollectives::prepared(System& s, CollectiveKind program, DType wire) {
  auto& p = s.programs[{static_cast<int>(program), wire}];
  if (!p) {
    const char* t = wire == DType::F32 ? "f32" : "i32";
    std::string name =
        std::string(collectiveName(program)) + "-" + t + "-" + std::to_string(s.device->chips());
    TpuArch arch = TpuArch::fromDescription(arch_);
    tpuprog::Job job = tpuprog::assemble(programText(program, t), name + ".s",
                                         tpuprog::AssembleOptions::forArch(arch));
    std::string dir = workDirectory_ + "/" + name;
    tpuprog::writeJob(dir, job);
    p = s.device->prepare(dir + "/job.plan");
  }
  return *p;
}

CollectiveService::Ran IciCollectives::launch(CollectiveKind program, DType wire, const NpyArray& x,
                                              int64_t part) {
  const int n = static_cast<int>(x.shape.at(0));
  System& s = system(n);
  LaunchArgs args;
  args.inputs = {{"X", x}};
  if (program == CollectiveKind::AllGather) args.scalars = {{"M", part * n}};
  if (program == CollectiveKind::ReduceScatter) args.scalars = {{"L", part}};
  args.statistics = false;
  LaunchReport report = s.device->launch(prepared(s, program, wire), args);
  Ran ran;
  ran.y = report.outputs.at("Y");
  ran.cycles = report.cycles;
  ran.seconds = report.cycles / (arch_.getFloat("chip.clock_ghz") * 1e9);
  return ran;
}

} // namespace chipless::runtime::remote
