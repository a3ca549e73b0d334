#include "runtime/remote/collective_group.h"

#include "runtime/remote/codec.h"
#include "support/error.h"

namespace chipless::runtime::remote {

CollectiveGroup::CollectiveGroup(const ServerAddress& address, std::string group, int rank,
                                 int size, CollectiveNetwork network)
    : connection_(address, clientToken()), group_(std::move(group)), rank_(rank), size_(size),
      network_(network) {
  if (size < 1 || rank < 0 || rank >= size)
    throw Error(std::string(networkBackend(network)) + ": rank " + std::to_string(rank) + " of " +
                std::to_string(size) + " is not a rank of the group");
}

CollectiveResult CollectiveGroup::run(CollectiveKind kind, int root, const NpyArray& block,
                                      uint32_t tag) {
  uint64_t sequence = 0;
  const bool anySource = kind == CollectiveKind::Recv && root == kAnySource;
  // A receive from any source gives, for every rank, the number of its next send to here.
  std::vector<uint64_t> expected;
  if (anySource) {
    for (int from = 0; from < size_; ++from) {
      auto it = pointToPoint_.find({from, rank_, tag});
      expected.push_back(it == pointToPoint_.end() ? 0 : it->second);
    }
  } else if (kind == CollectiveKind::Send || kind == CollectiveKind::Recv) {
    if (root < 0 || root >= size_ || root == rank_)
      throw Error(std::string(networkBackend(network_)) + " " + collectiveName(kind) + ": rank " +
                  std::to_string(root) + " is not another rank of the group of " +
                  std::to_string(size_));
    int from = kind == CollectiveKind::Send ? rank_ : root;
    int to = kind == CollectiveKind::Send ? root : rank_;
    sequence = pointToPoint_[{from, to, tag}]++;
  } else {
    sequence = sequence_++;
  }
  WireWriter w;
  w.putString(group_);
  w.put<uint64_t>(sequence);
  w.put<uint32_t>(static_cast<uint32_t>(rank_));
  w.put<uint32_t>(static_cast<uint32_t>(size_));
  w.put<uint8_t>(static_cast<uint8_t>(network_));
  w.put<uint8_t>(static_cast<uint8_t>(kind));
  w.put<uint32_t>(static_cast<uint32_t>(root));
  w.put<uint32_t>(tag);
  w.put<uint32_t>(static_cast<uint32_t>(expected.size()));
  for (uint64_t e : expected) w.put<uint64_t>(e);
  putArray(w, block);
  std::string reply = connection_.call(Opcode::Collective, w.bytes());
  WireReader r(reply, "Collective reply");
  CollectiveResult result;
  result.block = getArray(r, "block");
  result.seconds = r.get<double>("seconds");
  result.cycles = r.get<double>("cycles");
  result.source = static_cast<int>(r.get<uint32_t>("source"));
  r.expectEnd();
  if (anySource) {
    if (result.source < 0 || result.source >= size_ || result.source == rank_)
      r.fail("source", std::to_string(result.source) + " is not another rank of the group");
    ++pointToPoint_[{result.source, rank_, tag}];
  }
  return result;
}

} // namespace chipless::runtime::remote
