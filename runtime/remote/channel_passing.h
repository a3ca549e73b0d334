#pragma once
/// How the device server hands a worker process one channel per session: a connected
/// Unix socket passed over the worker's control socket (SCM_RIGHTS), so that the sessions
/// of a shared device reach its worker at the same time, each on a socket of its own.
namespace chipless::runtime::remote {

/// Sends `fd` over the Unix socket `control` (the caller keeps its copy and may close it).
/// Throws chipless::Error when the worker is gone.
void sendChannel(int control, int fd);
/// Receives a socket sent by sendChannel over `control`: its descriptor (close-on-exec), or
/// -1 when the server closed the control socket. Throws chipless::Error for anything else.
int receiveChannel(int control);

} // namespace chipless::runtime::remote
