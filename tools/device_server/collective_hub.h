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

  /// One rank's Collective request; returns the reply message for that rank.
  boost::asio::awaitable<runtime::remote::Message> join(const std::string& payload);

private:
  struct Pending;

  Runner run_;
  double timeoutSeconds_;
  /// Where run_ waits for a network worker, so that no thread serving the sockets blocks.
  boost::asio::thread_pool pool_{2}; ///< one per network
  std::mutex mutex_;
  std::map<std::string, std::shared_ptr<Pending>> pending_; ///< by "group#sequence"
};

} // namespace chipless::server
