#include "runtime/remote/worker_loop.h"

#include <cstdio>
#include <filesystem>
#include <unistd.h>

namespace chipless::runtime::remote {

namespace fs = std::filesystem;

WorkDirectory::WorkDirectory(const std::string& name) {
  std::error_code ec;
  fs::path p =
      fs::temp_directory_path(ec) / ("chipless-" + name + "-" + std::to_string(::getpid()));
  fs::create_directories(p, ec);
  path_ = p.string();
}

WorkDirectory::~WorkDirectory() {
  std::error_code ignored;
  fs::remove_all(path_, ignored);
}

int answerUntilClosed(int fd, const std::string& name,
                      const std::function<std::string(const Message&)>& answer) {
  FrameStream stream(fd, "device server");
  try {
    for (;;) {
      bool eof = false;
      const Message& request = stream.receive(&eof);
      if (eof) return 0;
      Message reply{Opcode::Reply, ""};
      try {
        reply.payload = answer(request);
      } catch (const std::exception& e) {
        reply = {Opcode::Error, e.what()};
      }
      stream.send(reply.opcode, reply.payload);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "chipless-device-server %s: %s\n", name.c_str(), e.what());
    return 1;
  }
}

} // namespace chipless::runtime::remote
