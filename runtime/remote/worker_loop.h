#pragma once
/// What every worker process of the device server does the same way: keep its files in a
/// private directory, and answer each request from the server until the server closes the
/// connection.
#include "runtime/remote/protocol.h"

#include <functional>
#include <string>

namespace chipless::runtime::remote {

/// A worker's directory under $TMPDIR ("chipless-NAME-PID"), removed with everything in it
/// when the worker ends.
class WorkDirectory {
public:
  explicit WorkDirectory(const std::string& name);
  ~WorkDirectory();
  WorkDirectory(const WorkDirectory&) = delete;
  WorkDirectory& operator=(const WorkDirectory&) = delete;
  const std::string& path() const { return path_; }
  /// Makes SIGTERM (the server stopping its workers, or dying: PR_SET_PDEATHSIG) end this
  /// process only after every WorkDirectory alive in it is removed. Call it before the
  /// process starts threads: it blocks the signal and waits for it on a thread of its own.
  static void removeAllOnTermination();
  /// Removes the work directories a worker process `pid` left behind when it was killed
  /// (SIGKILL leaves no chance to clean up); call it once the process is reaped.
  static void removeLeftOf(int pid);

private:
  std::string path_;
};

/// Answers each message arriving on `fd` with a Reply carrying what `answer` returns, or an
/// Error with the message of what it throws, until the server closes the connection. Returns
/// the exit status: 0, or 1 after a broken connection (reported on stderr naming `name`).
int answerUntilClosed(int fd, const std::string& name,
                      const std::function<std::string(const Message&)>& answer);

} // namespace chipless::runtime::remote
