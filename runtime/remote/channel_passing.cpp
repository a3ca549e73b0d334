#include "runtime/remote/channel_passing.h"

#include "support/error.h"

#include <cerrno>
#include <cstring>
#include <string>
#include <sys/socket.h>
#include <unistd.h>

namespace chipless::runtime::remote {

namespace {
/// A message of one byte with room for one descriptor.
struct ChannelMessage {
  char byte = 'c';
  iovec iov{&byte, 1};
  alignas(cmsghdr) char space[CMSG_SPACE(sizeof(int))] = {};
  msghdr msg{};
  ChannelMessage() {
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = space;
    msg.msg_controllen = sizeof space;
  }
  ChannelMessage(const ChannelMessage&) = delete;
  ChannelMessage& operator=(const ChannelMessage&) = delete;
};
} // namespace

void sendChannel(int control, int fd) {
  ChannelMessage m;
  cmsghdr* c = CMSG_FIRSTHDR(&m.msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  std::memcpy(CMSG_DATA(c), &fd, sizeof(int));
  ssize_t n;
  do {
    n = ::sendmsg(control, &m.msg, MSG_NOSIGNAL);
  } while (n < 0 && errno == EINTR);
  if (n != 1)
    throw Error(std::string("cannot pass a channel to the worker: ") + std::strerror(errno));
}

int receiveChannel(int control) {
  ChannelMessage m;
  ssize_t n;
  do {
    n = ::recvmsg(control, &m.msg, MSG_CMSG_CLOEXEC);
  } while (n < 0 && errno == EINTR);
  if (n == 0) return -1;
  if (n < 0)
    throw Error(std::string("the server's control socket failed: ") + std::strerror(errno));
  for (cmsghdr* c = CMSG_FIRSTHDR(&m.msg); c; c = CMSG_NXTHDR(&m.msg, c))
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
      int fd = -1;
      std::memcpy(&fd, CMSG_DATA(c), sizeof(int));
      return fd;
    }
  throw Error("the server's control socket carried no channel");
}

} // namespace chipless::runtime::remote
