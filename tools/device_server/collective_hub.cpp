#include "tools/device_server/collective_hub.h"

#include "runtime/remote/codec.h"
#include "runtime/remote/collectives.h"
#include "support/error.h"
#include "support/wire.h"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <chrono>
#include <vector>

namespace chipless::server {

namespace net = boost::asio;
using runtime::remote::CollectiveKind;
using runtime::remote::Message;
using runtime::remote::Opcode;

/// A receive from any source waiting for a send.
struct CollectiveHub::AnyReceive {
  std::string group;
  uint32_t to = 0;
  uint32_t tag = 0;
  std::vector<uint64_t> expected; ///< by sender: the sequence number its next send has
  std::shared_ptr<net::steady_timer> timer;
};

/// One collective under way.
struct CollectiveHub::Pending {
  uint64_t arrival = 0; ///< when it was first called (sends in the order they came)
  std::string key;      ///< in pending_
  std::string group;
  std::string what; ///< the collective, for messages
  uint8_t network = 0;
  uint8_t kind = 0;
  uint32_t root = 0;
  uint32_t size = 0;
  uint32_t arrived = 0;
  std::vector<bool> present;   ///< by seat: rank (a send: sender, receiver)
  std::vector<uint32_t> ranks; ///< the rank in each seat
  std::vector<NpyArray> blocks;
  std::vector<std::shared_ptr<net::steady_timer>> waiters;
  bool done = false;
  std::vector<Message> replies;
};

namespace {
Message error(const std::string& text) {
  return {Opcode::Error, text};
}

/// A send's or receive's key in pending_.
std::string pointToPointKey(const std::string& group, uint32_t from, uint32_t to, uint32_t tag,
                            uint64_t sequence) {
  return group + "#p2p#" + std::to_string(from) + ">" + std::to_string(to) + "#" +
         std::to_string(tag) + "#" + std::to_string(sequence);
}

/// A collective's reply: the rank's result, the modelled time and the other rank.
Message reply(const NpyArray& block, double seconds, double cycles, uint32_t source) {
  WireWriter out;
  runtime::remote::putArray(out, block);
  out.put<double>(seconds);
  out.put<double>(cycles);
  out.put<uint32_t>(source);
  return {Opcode::Reply, out.take()};
}

/// Where the root of a receive from any source is on the wire.
constexpr uint32_t kAnySource = 0xffffffffu;
} // namespace

int CollectiveHub::waitingSender(const std::string& group, uint32_t to, uint32_t tag,
                                 const std::vector<uint64_t>& expected) const {
  int best = -1;
  uint64_t first = 0;
  for (uint32_t from = 0; from < expected.size(); ++from) {
    if (from == to) continue;
    auto it = pending_.find(pointToPointKey(group, from, to, tag, expected[from]));
    if (it == pending_.end() || !it->second->present[0] || it->second->present[1]) continue;
    if (best < 0 || it->second->arrival < first) {
      best = static_cast<int>(from);
      first = it->second->arrival;
    }
  }
  return best;
}

void CollectiveHub::callOff(const std::shared_ptr<Pending>& p, const std::string& why) {
  auto found = pending_.find(p->key);
  if (found != pending_.end() && found->second == p) pending_.erase(found);
  for (auto& m : p->replies) m = error(why);
  p->done = true;
  for (auto& t : p->waiters)
    if (t) net::post(t->get_executor(), [t] { t->cancel(); });
}

bool CollectiveHub::calledOffForLeavers(const std::shared_ptr<Pending>& p) {
  auto members = groups_.find(p->group);
  if (members == groups_.end()) return false;
  std::string left;
  for (size_t q = 0; q < p->ranks.size(); ++q)
    if (!p->present[q] && members->second.gone.count(p->ranks[q]))
      left += (left.empty() ? "" : ", ") + std::to_string(p->ranks[q]);
  if (left.empty()) return false;
  callOff(p, p->what + ": rank(s) " + left +
                 " left the group (the connection closed) without calling it");
  return true;
}

void CollectiveHub::leave(uint64_t session) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto mine = bySession_.find(session);
  if (mine == bySession_.end()) return;
  std::set<std::string> touched;
  for (const auto& [group, rank] : mine->second) {
    Members& m = groups_[group];
    auto s = m.sessions.find(rank);
    if (s != m.sessions.end() && s->second == session) {
      m.gone.insert(rank);
      touched.insert(group);
    }
  }
  bySession_.erase(mine);
  std::vector<std::shared_ptr<Pending>> waiting;
  for (const auto& [key, p] : pending_)
    if (touched.count(p->group)) waiting.push_back(p);
  for (const auto& p : waiting) calledOffForLeavers(p);
  // A group whose every rank has left is forgotten.
  for (const std::string& group : touched) {
    Members& m = groups_[group];
    if (m.gone.size() == m.sessions.size()) groups_.erase(group);
  }
}

net::awaitable<Message> CollectiveHub::join(const std::string& payload, uint64_t session) {
  std::string group;
  uint64_t sequence = 0;
  uint32_t rank = 0, size = 0, root = 0, tag = 0;
  uint8_t kind = 0, network = 0;
  std::vector<uint64_t> expected;
  NpyArray block;
  try {
    WireReader r(payload, "Collective request");
    group = r.getString("group");
    sequence = r.get<uint64_t>("sequence");
    rank = r.get<uint32_t>("rank");
    size = r.get<uint32_t>("size");
    network = r.get<uint8_t>("network");
    kind = r.get<uint8_t>("kind");
    root = r.get<uint32_t>("root");
    tag = r.get<uint32_t>("tag");
    expected.resize(r.getCount("expected", 8));
    for (auto& e : expected) e = r.get<uint64_t>("expected");
    block = runtime::remote::getArray(r, "block");
    r.expectEnd();
    if (size < 1 || size > 64) r.fail("size", std::to_string(size) + " ranks (1 to 64)");
    if (rank >= size) r.fail("rank", std::to_string(rank) + " is not below the size");
    if (network > static_cast<uint8_t>(runtime::remote::CollectiveNetwork::Ring))
      r.fail("network", "unknown");
    if (kind > static_cast<uint8_t>(CollectiveKind::Recv)) r.fail("kind", "unknown");
  } catch (const Error& e) {
    co_return error(e.what());
  }
  // Who meets: every rank of the group; for a send, the sender and its receiver, whose two
  // requests (a Send and a Recv) make one transfer.
  const auto k = static_cast<CollectiveKind>(kind);
  const auto via = static_cast<runtime::remote::CollectiveNetwork>(network);
  const std::string backend = runtime::remote::networkBackend(via);
  const bool pointToPoint = k == CollectiveKind::Send || k == CollectiveKind::Recv;
  auto executor = co_await net::this_coro::executor;
  if (k == CollectiveKind::Recv && root == kAnySource) {
    // A receive from any source waits for a send to it that is next in its pair's order;
    // then it is that send's receive.
    if (expected.size() != size)
      co_return error(backend +
                      " recv: a receive from any source gives the next sequence "
                      "number of every rank's sends (" +
                      std::to_string(size) + "), not " + std::to_string(expected.size()));
    const auto deadline = std::chrono::steady_clock::now() +
                          std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                              std::chrono::duration<double>(timeoutSeconds_));
    std::shared_ptr<AnyReceive> waiting;
    for (;;) {
      {
        std::lock_guard<std::mutex> lock(mutex_);
        int sender = waitingSender(group, rank, tag, expected);
        if (sender >= 0 || (waiting && std::chrono::steady_clock::now() >= deadline)) {
          if (waiting) std::erase(anyReceives_, waiting);
          if (sender < 0)
            co_return error(backend + " recv from any source (tag " + std::to_string(tag) +
                            ") by rank " + std::to_string(rank) + " of group '" + group +
                            "': no rank sent to it within " +
                            std::to_string(static_cast<int>(timeoutSeconds_)) + " s");
          root = static_cast<uint32_t>(sender);
          sequence = expected[root];
          break;
        }
        if (!waiting) {
          waiting = std::make_shared<AnyReceive>();
          waiting->group = group;
          waiting->to = rank;
          waiting->tag = tag;
          waiting->expected = expected;
          waiting->timer = std::make_shared<net::steady_timer>(executor);
          waiting->timer->expires_at(deadline);
          anyReceives_.push_back(waiting);
        }
      }
      boost::system::error_code ec;
      co_await waiting->timer->async_wait(net::redirect_error(net::use_awaitable, ec));
    }
  }
  if (pointToPoint && (root >= size || root == rank))
    co_return error(backend + " " + runtime::remote::collectiveName(k) + ": rank " +
                    std::to_string(root) + " is not another rank of the group");
  const uint32_t from = k == CollectiveKind::Send ? rank : root;
  const uint32_t to = k == CollectiveKind::Send ? root : rank;
  const uint32_t parties = pointToPoint ? 2 : size;
  const uint32_t seat = pointToPoint ? (k == CollectiveKind::Send ? 0 : 1) : rank;
  const uint8_t meeting = pointToPoint ? static_cast<uint8_t>(CollectiveKind::Send) : kind;
  const uint32_t meetingRoot = pointToPoint ? 0 : root;
  const std::string what = pointToPoint
                               ? backend + " send #" + std::to_string(sequence) + " (tag " +
                                     std::to_string(tag) + ") from rank " + std::to_string(from) +
                                     " to rank " + std::to_string(to) + " of group '" + group + "'"
                               : backend + " " + runtime::remote::collectiveName(k) + " #" +
                                     std::to_string(sequence) + " of group '" + group + "'";
  const std::string key = pointToPoint ? pointToPointKey(group, from, to, tag, sequence)
                                       : group + "#" + std::to_string(sequence);
  std::shared_ptr<Pending> p;
  std::shared_ptr<net::steady_timer> timer;
  bool last = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto& slot = pending_[key];
    if (!slot) {
      slot = std::make_shared<Pending>();
      slot->arrival = arrivals_++;
      slot->key = key;
      slot->group = group;
      slot->what = what;
      slot->network = network;
      slot->kind = meeting;
      slot->root = meetingRoot;
      slot->size = size;
      slot->present.assign(parties, false);
      slot->ranks = pointToPoint ? std::vector<uint32_t>{from, to} : std::vector<uint32_t>{};
      for (uint32_t q = 0; !pointToPoint && q < size; ++q) slot->ranks.push_back(q);
      slot->blocks.resize(parties);
      slot->waiters.resize(parties);
      slot->replies.resize(parties);
    }
    p = slot;
    if (p->kind != meeting || p->root != meetingRoot || p->size != size || p->network != network)
      co_return error(what + ": rank " + std::to_string(rank) +
                      " called it with another kind, root, size or backend than the ranks before");
    if (p->present[seat])
      co_return error(what + ": rank " + std::to_string(rank) + " called it twice");
    p->present[seat] = true;
    p->blocks[seat] = std::move(block);
    Members& members = groups_[group];
    members.sessions[rank] = session;
    members.gone.erase(rank);
    bySession_[session].insert({group, rank});
    last = ++p->arrived == parties;
    if (last) {
      pending_.erase(key);
    } else if (calledOffForLeavers(p)) {
      co_return p->replies[seat];
    } else if (pointToPoint && seat == 0) {
      // A send does not wait for its receive (the server holds the block, as an eager send
      // buffers it): sends in a ring of ranks that all send first cannot deadlock. A receive
      // from any source that this send is next for learns of it.
      for (const auto& any : anyReceives_)
        if (any->group == group && any->to == to && any->tag == tag &&
            any->expected.at(from) == sequence)
          net::post(any->timer->get_executor(), [t = any->timer] { t->cancel(); });
      co_return reply(makeNpy(p->blocks[0].dtype, {0}), 0, 0, to);
    } else {
      timer = std::make_shared<net::steady_timer>(executor);
      timer->expires_after(std::chrono::duration_cast<std::chrono::steady_clock::duration>(
          std::chrono::duration<double>(timeoutSeconds_)));
      p->waiters[seat] = timer;
    }
  }
  if (!last) {
    boost::system::error_code ec;
    co_await timer->async_wait(net::redirect_error(net::use_awaitable, ec));
    std::lock_guard<std::mutex> lock(mutex_);
    if (p->done) co_return p->replies[seat];
    // The others did not come: the collective is called off for every rank still waiting.
    auto found = pending_.find(key);
    if (found != pending_.end() && found->second == p) pending_.erase(found);
    std::string missing;
    for (uint32_t q = 0; q < parties; ++q)
      if (!p->present[q]) missing += (missing.empty() ? "" : ", ") + std::to_string(p->ranks[q]);
    co_return error(what + ": rank(s) " + missing + " did not call it within " +
                    std::to_string(static_cast<int>(timeoutSeconds_)) + " s");
  }

  // The last rank runs it for all.
  WireWriter w;
  w.put<uint8_t>(meeting);
  w.put<uint32_t>(meetingRoot);
  w.put<uint32_t>(parties);
  for (const NpyArray& b : p->blocks) runtime::remote::putArray(w, b);
  std::string request = w.take();
  Message ran = co_await net::co_spawn(
      pool_.get_executor(), [&]() -> net::awaitable<Message> { co_return run_(via, request); },
      net::use_awaitable);
  std::vector<Message> replies(parties);
  if (ran.opcode != Opcode::Reply) {
    for (auto& m : replies) m = error(ran.payload);
  } else {
    try {
      WireReader r(ran.payload, "RunCollective reply");
      std::vector<NpyArray> results(r.getCount("results", 13));
      for (auto& b : results) b = runtime::remote::getArray(r, "result");
      double seconds = r.get<double>("seconds");
      double cycles = r.get<double>("cycles");
      if (results.size() != parties) r.fail("results", "one per rank expected");
      for (uint32_t q = 0; q < parties; ++q)
        replies[q] =
            reply(results[q], seconds, cycles, pointToPoint ? p->ranks[1 - q] : meetingRoot);
    } catch (const Error& e) {
      for (auto& m : replies) m = error(e.what());
    }
  }
  std::vector<std::shared_ptr<net::steady_timer>> waiters;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    p->replies = replies;
    p->done = true;
    waiters = p->waiters;
  }
  for (auto& t : waiters)
    if (t) net::post(t->get_executor(), [t] { t->cancel(); });
  co_return replies[seat];
}

} // namespace chipless::server
