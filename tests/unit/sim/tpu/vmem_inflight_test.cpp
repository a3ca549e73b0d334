// VmemInflight: the page counts reject accesses that cannot conflict, keep those that can,
// forget pruned accesses, and meets() is exact for column blocks of the same rows.
#include "sim/tpu/vmem_inflight.h"

#include <gtest/gtest.h>

namespace chipless::sim::tpu {
namespace {

StridedBlock rows(int64_t base, int64_t width, int64_t stride, int64_t count) {
  return {base, width, stride, count};
}

TEST(VmemInflight, PageCountsSeparateReadersFromWriters) {
  VmemInflight v;
  v.reset(1 << 20);
  v.add(rows(0, 4096, 0, 1), 0, 100, /*write=*/false, 100, "mxu", 3);
  v.add(rows(65536, 4096, 0, 1), 0, 100, /*write=*/true, 101, "mxu", 4);
  VmemInflight::Query overReader(rows(1024, 64, 0, 1)), overWriter(rows(66000, 64, 0, 1)),
      elsewhere(rows(500000, 64, 0, 1));
  EXPECT_FALSE(v.mayConflict(overReader, false)) << "read against read";
  EXPECT_TRUE(v.mayConflict(overReader, true));
  EXPECT_TRUE(v.mayConflict(overWriter, false));
  EXPECT_FALSE(v.mayConflict(elsewhere, true));
}

TEST(VmemInflight, PruneDropsEndedAccessesAndTheirPages) {
  VmemInflight v;
  v.reset(1 << 20);
  for (int i = 0; i < 100; ++i)
    v.add(rows(i * 4096, 4096, 0, 1), 0, i < 90 ? 10 : 1000, true, 100, "dma", 0);
  v.prune(50);
  EXPECT_EQ(v.entries().size(), 10u);
  EXPECT_FALSE(v.mayConflict(VmemInflight::Query(rows(0, 64, 0, 1)), true));
  EXPECT_TRUE(v.mayConflict(VmemInflight::Query(rows(95 * 4096, 64, 0, 1)), false));
}

TEST(VmemInflight, MeetsIsExactForOtherColumnsOfTheSameRows) {
  VmemInflight v;
  v.reset(1 << 24);
  v.add(rows(0, 512, 16384, 64), 0, 100, true, 100, "mxu", 0); // columns 0..511 of 64 rows
  const VmemInflight::Access& a = v.entries().front();
  EXPECT_FALSE(VmemInflight::meets(a, VmemInflight::Query(rows(512, 512, 16384, 64))));
  EXPECT_TRUE(VmemInflight::meets(a, VmemInflight::Query(rows(256, 512, 16384, 64))));
  EXPECT_TRUE(VmemInflight::meets(a, VmemInflight::Query(rows(16384 * 10 + 100, 8, 0, 1))));
  EXPECT_FALSE(VmemInflight::meets(a, VmemInflight::Query(rows(16384 * 10 + 600, 8, 0, 1))));
}

} // namespace
} // namespace chipless::sim::tpu
