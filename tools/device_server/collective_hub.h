#pragma once
/// Where the ranks of a `tpu_dist` or `spyre_dist` group meet: each rank's Collective request
/// waits here until every rank of its group has made the same call (the same sequence
/// number), then the last one to arrive has the worker of the group's network (the ICI or
/// the ring) run it and every rank gets its own result.
#include "runtime/remote/collectives.h"
#include "runtime/remote/protocol.h"

#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>

namespace chipless::server {

class CollectiveHub {
public:
  /// The worker of a network: takes a RunCollective payload, returns its reply (Reply or Error).
  using Runner = std::function<runtime::remote::Message(runtime::remote::CollectiveNetwork,
                                                        const std::string&)>;
  /// `run` has the network's worker run a collective; a rank waits at most `timeoutSeconds`
  /// for the others.
  CollectiveHub(Runner run, double timeoutSeconds)
      : run_(std::move(run)), timeoutSeconds_(timeoutSeconds) {}

  /// One rank's Collective request, made on connection `session`; returns the reply message
  /// for that rank.
  boost::asio::awaitable<runtime::remote::Message> join(const std::string& payload,
                                                        uint64_t session);
  /// Connection `session` has closed: the ranks it called for have left their groups, and
  /// every collective waiting for one of them is called off at once (not at the timeout).
  void leave(uint64_t session);

private:
  struct Pending;
  /// The ranks of a group seen so far, by the connection that made their calls, and those
  /// whose connection has closed.
  struct Members {
    std::map<uint32_t, uint64_t> sessions;
    std::set<uint32_t> gone;
  };
  struct AnyReceive;
  /// The earliest send waiting for rank `to` with `tag` that is next in its pair's order by
  /// `expected` (the receiver's count of receives from each rank), or -1 (mutex_ held).
  int waitingSender(const std::string& group, uint32_t to, uint32_t tag,
                    const std::vector<uint64_t>& expected) const;
  /// Ends `p` with `why` for every rank waiting at it (mutex_ held).
  void callOff(const std::shared_ptr<Pending>& p, const std::string& why);
  /// Calls `p` off if a rank it waits for has left its group (mutex_ held); returns whether.
  bool calledOffForLeavers(const std::shared_ptr<Pending>& p);

  Runner run_;
  double timeoutSeconds_;
  /// Where run_ waits for a network worker, so that no thread serving the sockets blocks.
  boost::asio::thread_pool pool_{2}; ///< one per network
  std::mutex mutex_;
  std::map<std::string, std::shared_ptr<Pending>> pending_; ///< by "group#sequence"
  std::map<std::string, Members> groups_;
  std::vector<std::shared_ptr<AnyReceive>> anyReceives_; ///< receives from any source waiting
  uint64_t arrivals_ = 0;                                ///< sends made so far, for their order
  std::map<uint64_t, std::set<std::pair<std::string, uint32_t>>> bySession_; ///< group, rank
};

} // namespace chipless::server
