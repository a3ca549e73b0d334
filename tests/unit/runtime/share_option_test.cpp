/// The text form of a device share ($CHIPLESS_DEVICE_SHARE, Python's share=): every field,
/// its units and each malformed value as an error naming the field.
#include "runtime/share_option.h"
#include "support/error.h"

#include <cstdlib>
#include <gtest/gtest.h>

namespace chipless::runtime {
namespace {

std::string errorOf(const std::string& text) {
  try {
    parseDeviceShare(text, "CHIPLESS_DEVICE_SHARE");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(ShareOption, ReadsCoresMemoryAndWindow) {
  DeviceShare s = parseDeviceShare("cores=2,memory=16G,window-ms=20", "x");
  EXPECT_EQ(s.cores, 2);
  EXPECT_EQ(s.memoryBytes, 16ull << 30);
  EXPECT_EQ(s.windowMicroseconds, 20000);
  EXPECT_EQ(parseDeviceShare("cores=1,memory=512K", "x").memoryBytes, 512u << 10);
  EXPECT_EQ(parseDeviceShare("cores=1,memory=3m", "x").memoryBytes, 3u << 20);
  EXPECT_EQ(parseDeviceShare("cores=1,memory=4096", "x").memoryBytes, 4096u);
  DeviceShare d = parseDeviceShare("cores=1", "x");
  EXPECT_EQ(d.memoryBytes, 0u); // the cores' part
  EXPECT_EQ(d.windowMicroseconds, DeviceShare{}.windowMicroseconds);
  EXPECT_EQ(parseDeviceShare(describeShare(s), "x").memoryBytes, s.memoryBytes);
  EXPECT_EQ(describeShare(s), "cores=2,memory=17179869184,window-ms=20");
}

TEST(ShareOption, MalformedValuesNameTheField) {
  EXPECT_EQ(errorOf("memory=1G"),
            "CHIPLESS_DEVICE_SHARE: 'memory=1G' does not say how many cores (cores=N)");
  EXPECT_EQ(errorOf("cores=0"), "CHIPLESS_DEVICE_SHARE: cores: a share has at least 1 core");
  EXPECT_EQ(errorOf("cores=-1"), "CHIPLESS_DEVICE_SHARE: cores: '-1' is not a whole number");
  EXPECT_EQ(errorOf("cores=1,memory=0"),
            "CHIPLESS_DEVICE_SHARE: memory: a share has some memory (leave memory out for the "
            "cores' part)");
  EXPECT_EQ(errorOf("cores=1,memory=12T"), "CHIPLESS_DEVICE_SHARE: memory: '12T' is not a whole "
                                           "number (optionally ending in K, M or G)");
  EXPECT_EQ(errorOf("cores=1,memory=99999999999G"),
            "CHIPLESS_DEVICE_SHARE: memory: 99999999999G is too large (at most "
            "18446744073709551615)");
  EXPECT_EQ(errorOf("cores=1,window-ms=60001"),
            "CHIPLESS_DEVICE_SHARE: window-ms: 60001 is too large (at most 60000)");
  EXPECT_EQ(errorOf("cores=1,speed=3"),
            "CHIPLESS_DEVICE_SHARE: unknown field 'speed' (cores, memory, window-ms)");
  EXPECT_EQ(errorOf("cores"),
            "CHIPLESS_DEVICE_SHARE: 'cores' is not KEY=VALUE (cores=N,memory=BYTES,window-ms=MS)");
}

TEST(ShareOption, TheEnvironmentAsksOnlyWhenSet) {
  ::unsetenv("CHIPLESS_DEVICE_SHARE");
  EXPECT_FALSE(shareFromEnvironment());
  ::setenv("CHIPLESS_DEVICE_SHARE", "", 1);
  EXPECT_FALSE(shareFromEnvironment());
  ::setenv("CHIPLESS_DEVICE_SHARE", "cores=1", 1);
  ASSERT_TRUE(shareFromEnvironment());
  EXPECT_EQ(shareFromEnvironment()->cores, 1);
  ::unsetenv("CHIPLESS_DEVICE_SHARE");
}

} // namespace
} // namespace chipless::runtime
