/* A disk that fills up, for the output tests (tests/e2e/full_disk_test.cpp): loaded with
 * LD_PRELOAD, it lets a process write only CHIPLESS_FAULT_BYTES bytes in all to files under
 * CHIPLESS_FAULT_DIR; the write that would pass the limit writes what still fits and the
 * next one fails with ENOSPC, as write(2) does on a full file system. Every other write,
 * and every write when CHIPLESS_FAULT_BYTES is unset, goes straight through. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

static long long written;

/* Whether `fd` is a file under CHIPLESS_FAULT_DIR. */
static int faulty(int fd) {
  const char* dir = getenv("CHIPLESS_FAULT_DIR");
  char link[64], path[4096];
  if (!dir || !*dir) return 0;
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t n = readlink(link, path, sizeof path - 1);
  if (n < 0) return 0;
  path[n] = '\0';
  return strncmp(path, dir, strlen(dir)) == 0;
}

ssize_t write(int fd, const void* buf, size_t count) {
  static ssize_t (*real_write)(int, const void*, size_t);
  if (!real_write) real_write = (ssize_t(*)(int, const void*, size_t))dlsym(RTLD_NEXT, "write");
  const char* limit = getenv("CHIPLESS_FAULT_BYTES");
  if (!limit || !faulty(fd)) return real_write(fd, buf, count);
  long long room = atoll(limit) - written;
  if (room <= 0) {
    errno = ENOSPC;
    return -1;
  }
  if ((long long)count > room) count = (size_t)room;
  ssize_t n = real_write(fd, buf, count);
  if (n > 0) written += n;
  return n;
}
