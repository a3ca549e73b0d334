#pragma once
/// Where the ranks of a `tpu_dist` group meet: each rank's Collective request waits here until
/// every rank of its group has made the same call (the same sequence number), then the last
/// one to arrive has the server's ICI worker run it and every rank gets its own result.
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
  /// `run` sends a RunCollective payload to the ICI worker and returns its reply (Reply or
  /// Error); a rank waits at most `timeoutSeconds` for the others.
  CollectiveHub(std::function<runtime::remote::Message(const std::string&)> run,
                double timeoutSeconds)
      : run_(std::move(run)), timeoutSeconds_(timeoutSeconds) {}

  /// One rank's Collective request; returns the reply message for that rank.
  boost::asio::awaitable<runtime::remote::Message> join(const std::string& payload);

private:
  struct Pending;

  std::function<runtime::remote::Message(const std::string&)> run_;
  double timeoutSeconds_;
  /// Where run_ waits for the ICI worker, so that no thread serving the sockets blocks.
  boost::asio::thread_pool pool_{1};
  std::mutex mutex_;
  std::map<std::string, std::shared_ptr<Pending>> pending_; ///< by "group#sequence"
};

} // namespace chipless::server
