// The transport of tpu_dist and spyre_dist without Python: ranks as threads of this test, each
// with its own connection, meet on a device server started here; results against the host's
// arithmetic, the modelled ICI and ring time, and every way a group can go wrong.
#include "runtime/remote/collective_group.h"
#include "support/error.h"
#include "support/spyre_arch.h"
#include "tests/e2e/device_server_harness.h"
#include "tests/e2e/tpu_kernel_harness.h"

#include <functional>
#include <future>
#include <gtest/gtest.h>
#include <map>
#include <thread>

namespace chipless::test {
namespace {

using runtime::remote::CollectiveGroup;
using runtime::remote::CollectiveKind;
using runtime::remote::CollectiveNetwork;
using runtime::remote::CollectiveResult;

class DeviceServerCollectives : public ::testing::Test {
protected:
  void SetUp() override {
    dir = testDirectory();
    sockets = socketDirectory();
    address = "unix:" + sockets + "/s.sock";
    server = std::make_unique<ServerProcess>(
        "--devices tpu:1 --collective-timeout 2 --listen " + address, address, dir + "/server.log");
  }
  /// Runs `body(group)` on `size` ranks at once; returns what each threw ("" when nothing).
  std::vector<std::string> ranks(int size, const std::string& name,
                                 const std::function<void(CollectiveGroup&)>& body,
                                 CollectiveNetwork network = CollectiveNetwork::Ici) {
    std::vector<std::string> errors(size);
    std::vector<std::thread> threads;
    for (int r = 0; r < size; ++r)
      threads.emplace_back([&, r] {
        try {
          CollectiveGroup g(runtime::remote::parseServerAddress(address, "test"), name, r, size,
                            network);
          body(g);
        } catch (const std::exception& e) {
          errors[r] = e.what();
        }
      });
    for (auto& t : threads) t.join();
    return errors;
  }
  std::string dir, sockets, address;
  std::unique_ptr<ServerProcess> server;
};

TEST_F(DeviceServerCollectives, SumsAndGathersMatchTheHostAndTakeModelledTime) {
  const int size = 3;
  std::vector<CollectiveResult> reduced(size), gathered(size), big(size);
  auto errors = ranks(size, "g", [&](CollectiveGroup& g) {
    NpyArray x = randomF32Array({5, 7}, 10 + g.rank());
    reduced[g.rank()] = g.run(CollectiveKind::AllReduce, 0, x);
    gathered[g.rank()] = g.run(CollectiveKind::AllGather, 0, x);
    big[g.rank()] = g.run(CollectiveKind::AllReduce, 0, randomF32Array({256, 256}, g.rank()));
    // Empty tensors cross too (their data is no bytes at all).
    EXPECT_EQ(g.run(CollectiveKind::AllGather, 0, makeNpy(DType::F32, {0, 3})).block.shape,
              (std::vector<int64_t>{size, 0, 3}));
    EXPECT_EQ(g.run(CollectiveKind::AllReduce, 0, makeNpy(DType::F32, {0})).block.shape,
              (std::vector<int64_t>{0}));
  });
  for (const std::string& e : errors) ASSERT_EQ(e, "");
  std::vector<float> want(35, 0.0f);
  for (int r = 0; r < size; ++r) {
    std::vector<float> x = f32Values(randomF32Array({5, 7}, 10 + r));
    for (size_t i = 0; i < x.size(); ++i) want[i] += x[i];
  }
  for (int r = 0; r < size; ++r) {
    std::vector<float> got = f32Values(reduced[r].block);
    for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5) << r << " " << i;
    EXPECT_EQ(reduced[r].block.data, reduced[0].block.data); // every rank the same bits
    EXPECT_EQ(gathered[r].block.shape, (std::vector<int64_t>{size, 5, 7}));
    EXPECT_GT(reduced[r].seconds, 0.0);
    // 256 KiB per rank: the ring moves 2(N-1)/N of it over one link, at the link's bandwidth
    // (the bound), plus a hop's latency per step.
    double bound = 2.0 * (size - 1) / size * 256 * 256 * 4 /
                   (tpuArchWith().description.getFloat("ici.bandwidth_gb_s") * 1e9);
    EXPECT_GE(big[r].seconds, bound);
    EXPECT_LT(big[r].seconds, 2 * bound);
    EXPECT_GT(big[r].seconds, reduced[r].seconds);
  }
  for (int q = 0; q < size; ++q) {
    NpyArray x = randomF32Array({5, 7}, 10 + q);
    EXPECT_TRUE(std::equal(x.data.begin(), x.data.end(), gathered[1].block.data.begin() + q * 140));
  }
}

TEST_F(DeviceServerCollectives, SendsAreMatchedToReceivesByPairAndTagInOrder) {
  std::vector<CollectiveResult> got(4);
  auto errors = ranks(3, "p2p", [&](CollectiveGroup& g) {
    if (g.rank() == 0) {
      g.run(CollectiveKind::Send, 2, randomF32Array({3, 4}, 1), 7);
      g.run(CollectiveKind::Send, 2, randomF32Array({3, 4}, 2), 7);
      g.run(CollectiveKind::Send, 2, randomF32Array({5}, 3), 8);
    } else if (g.rank() == 2) {
      // The tag 8 message first: it waits for the sender's third send, and the tag 7 ones
      // keep their order.
      got[2] = g.run(CollectiveKind::Recv, 0, makeNpy(DType::F32, {5}), 8);
      got[0] = g.run(CollectiveKind::Recv, 0, makeNpy(DType::F32, {3, 4}), 7);
      got[1] = g.run(CollectiveKind::Recv, 0, makeNpy(DType::F32, {3, 4}), 7);
    }
    // Rank 1 takes no part; the group's collectives are not disturbed:
    g.run(CollectiveKind::Barrier, 0, makeNpy(DType::I32, {0}));
  });
  for (const std::string& e : errors) ASSERT_EQ(e, "");
  EXPECT_EQ(got[0].block.data, randomF32Array({3, 4}, 1).data);
  EXPECT_EQ(got[1].block.data, randomF32Array({3, 4}, 2).data);
  EXPECT_EQ(got[2].block.data, randomF32Array({5}, 3).data);
  EXPECT_GT(got[0].seconds, 0.0);

  errors = ranks(2, "p2p-bad", [&](CollectiveGroup& g) {
    if (g.rank() == 0) g.run(CollectiveKind::Send, 1, randomF32Array({4}, 1));
    if (g.rank() == 1) g.run(CollectiveKind::Recv, 0, makeNpy(DType::F32, {5}));
  });
  EXPECT_NE(errors[1].find("the receiver's tensor has another shape or type than the sent one"),
            std::string::npos)
      << errors[1];
  errors = ranks(2, "p2p-self", [&](CollectiveGroup& g) {
    if (g.rank() == 0) g.run(CollectiveKind::Send, 0, randomF32Array({4}, 1));
  });
  EXPECT_NE(errors[0].find("tpu_dist send: rank 0 is not another rank of the group of 2"),
            std::string::npos)
      << errors[0];
}

TEST_F(DeviceServerCollectives, AReceiveFromAnySourceTakesTheFirstSendNextInItsPairsOrder) {
  std::map<int, NpyArray> fromAny;
  CollectiveResult named;
  std::string nobody;
  std::promise<void> received;
  std::shared_future<void> receivedAlready = received.get_future().share();
  auto errors = ranks(
      4, "any",
      [&](CollectiveGroup& g) {
        if (g.rank() == 0) {
          struct Told { // however the receives end
            std::promise<void>& p;
            ~Told() { p.set_value(); }
          };
          {
            Told told{received};
            for (int i = 0; i < 3; ++i) {
              CollectiveResult r = g.run(CollectiveKind::Recv, runtime::remote::kAnySource,
                                         makeNpy(DType::F32, {6}), 4);
              fromAny[r.source] = r.block;
            }
          }
          // By name after from any: rank 2's second send, its first having come already.
          named = g.run(CollectiveKind::Recv, 2, makeNpy(DType::F32, {6}), 4);
          try {
            g.run(CollectiveKind::Recv, runtime::remote::kAnySource, makeNpy(DType::F32, {6}), 99);
          } catch (const Error& e) {
            nobody = e.what();
          }
        } else {
          g.run(CollectiveKind::Send, 0, randomF32Array({6}, 100 + g.rank()), 4);
          if (g.rank() == 2) {
            receivedAlready.wait();
            g.run(CollectiveKind::Send, 0, randomF32Array({6}, 200), 4);
          }
        }
      },
      CollectiveNetwork::Ring);
  for (const std::string& e : errors) ASSERT_EQ(e, "");
  ASSERT_EQ(fromAny.size(), 3u);
  for (int r = 1; r < 4; ++r) EXPECT_EQ(fromAny[r].data, randomF32Array({6}, 100 + r).data) << r;
  EXPECT_EQ(named.source, 2);
  EXPECT_EQ(named.block.data, randomF32Array({6}, 200).data);
  EXPECT_NE(nobody.find("spyre_dist recv from any source (tag 99) by rank 0 of group 'any': no "
                        "rank sent to it within 2 s"),
            std::string::npos)
      << nobody;
}

TEST_F(DeviceServerCollectives, AGroupThatDisagreesOrIsIncompleteGetsAClearError) {
  auto errors = ranks(2, "kinds", [](CollectiveGroup& g) {
    g.run(g.rank() == 0 ? CollectiveKind::AllReduce : CollectiveKind::Broadcast, 0,
          randomF32Array({4}, 1));
  });
  std::string all = errors[0] + "|" + errors[1]; // whichever rank came first waits in vain
  EXPECT_NE(all.find("called it with another kind, root, size or backend than the ranks before"),
            std::string::npos)
      << all;
  EXPECT_NE(all.find("did not call it within 2 s"), std::string::npos) << all;

  errors = ranks(2, "bf16", [](CollectiveGroup& g) {
    g.run(CollectiveKind::AllReduce, 0, makeNpy(DType::F16, {8}));
  });
  EXPECT_NE(errors[0].find("tpu_dist all_reduce of f16: the ICI sums f32 and i32"),
            std::string::npos)
      << errors[0];
  errors = ranks(2, "shapes", [](CollectiveGroup& g) {
    g.run(CollectiveKind::AllGather, 0, randomF32Array({g.rank() + 1}, 1));
  });
  EXPECT_NE(errors[0].find("rank 1 gives a f32 block of another shape or type than rank 0's"),
            std::string::npos)
      << errors[0];
  // A group whose ranks name different networks is refused the same way.
  errors = ranks(2, "networks", [&](CollectiveGroup& g) {
    CollectiveGroup other(runtime::remote::parseServerAddress(address, "test"), "networks",
                          g.rank(), 2,
                          g.rank() == 0 ? CollectiveNetwork::Ici : CollectiveNetwork::Ring);
    other.run(CollectiveKind::Barrier, 0, makeNpy(DType::I32, {0}));
  });
  all = errors[0] + "|" + errors[1];
  EXPECT_NE(all.find("another kind, root, size or backend"), std::string::npos) << all;
  try {
    CollectiveGroup bad(runtime::remote::parseServerAddress(address, "test"), "x", 3, 2);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("rank 3 of 2 is not a rank of the group"),
              std::string::npos);
  }
  EXPECT_TRUE(server->running());
}

TEST_F(DeviceServerCollectives, ARankWhoseConnectionClosesIsNotWaitedForUntilTheTimeout) {
  // The fixture's timeout is 2 s: rank 0 would give up on rank 2 then; it learns at once
  // that rank 2 has gone, whether rank 2 left before or after rank 0 called.
  // Rank 1 sends to rank 2 once rank 0 has learnt that rank 2 is gone (a send to a rank
  // still there would be answered at once).
  std::promise<void> known;
  std::shared_future<void> knownAlready = known.get_future().share();
  auto errors = ranks(3, "leaver", [&](CollectiveGroup& g) {
    g.run(CollectiveKind::Barrier, 0, makeNpy(DType::I32, {0}));
    if (g.rank() == 2) return; // its connection closes with the group
    if (g.rank() == 0) {
      struct Told { // however the all-reduce ends
        std::promise<void>& p;
        ~Told() { p.set_value(); }
      } told{known};
      g.run(CollectiveKind::AllReduce, 0, randomF32Array({4}, 1));
    }
    if (g.rank() == 1) {
      knownAlready.wait();
      g.run(CollectiveKind::Send, 2, randomF32Array({4}, 1));
    }
  });
  EXPECT_EQ(errors[2], "");
  for (int r : {0, 1}) {
    EXPECT_NE(errors[r].find("rank(s) 2 left the group (the connection closed) without calling it"),
              std::string::npos)
        << errors[r];
    EXPECT_EQ(errors[r].find("did not call it within"), std::string::npos) << errors[r];
  }
  EXPECT_NE(errors[0].find("tpu_dist all_reduce #1 of group 'leaver'"), std::string::npos)
      << errors[0];
  EXPECT_TRUE(server->running());
}

TEST_F(DeviceServerCollectives, SpyreDistRunsOnACardsRingAlongsideTheIci) {
  // Three ranks on the ring and two on the ICI at the same time, each network on a worker of
  // its own.
  const int size = 3;
  std::vector<CollectiveResult> reduced(size), halves(size), scattered(size), sent(size);
  std::thread ici([&] {
    auto errors = ranks(2, "beside", [](CollectiveGroup& g) {
      for (int i = 0; i < 3; ++i) g.run(CollectiveKind::AllReduce, 0, randomF32Array({64, 64}, i));
    });
    for (const std::string& e : errors) EXPECT_EQ(e, "");
  });
  auto errors = ranks(
      size, "ring",
      [&](CollectiveGroup& g) {
        const int r = g.rank();
        reduced[r] = g.run(CollectiveKind::AllReduce, 0, randomF32Array({256, 256}, 20 + r));
        halves[r] = g.run(CollectiveKind::AllReduce, 0, makeNpy(DType::F16, {100}));
        scattered[r] = g.run(CollectiveKind::ReduceScatter, 0, randomF32Array({size, 40}, 30 + r));
        if (r == 0) g.run(CollectiveKind::Send, 2, randomF32Array({9, 9}, 5));
        if (r == 2) sent[2] = g.run(CollectiveKind::Recv, 0, makeNpy(DType::F32, {9, 9}));
        g.run(CollectiveKind::Barrier, 0, makeNpy(DType::I32, {0}));
      },
      CollectiveNetwork::Ring);
  ici.join();
  for (const std::string& e : errors) ASSERT_EQ(e, "");
  std::vector<float> want(256 * 256, 0.0f), scatter(size * 40, 0.0f);
  for (int r = 0; r < size; ++r) {
    std::vector<float> x = f32Values(randomF32Array({256, 256}, 20 + r));
    for (size_t i = 0; i < x.size(); ++i) want[i] += x[i];
    std::vector<float> y = f32Values(randomF32Array({size, 40}, 30 + r));
    for (size_t i = 0; i < y.size(); ++i) scatter[i] += y[i];
  }
  // 256 KiB per rank over 3 groups of 10 cores: the ring moves (N-1)/N of it through each
  // link in each direction at ring.bytes_per_cycle, and every rank's block is read from and
  // written back to the card's one device memory; the slower of the two is the bound.
  const SpyreArch card = SpyreArch::load(SpyreArch::defaultFile());
  const double bytes = 256 * 256 * 4;
  const double ring =
      bytes * (size - 1) / size / card.ring.bytes_per_cycle / (card.chip.clock_ghz * 1e9);
  const double dram = 2 * size * bytes / (card.dram.bandwidth_gb_s * 1e9);
  const double bound = std::max(ring, dram);
  for (int r = 0; r < size; ++r) {
    std::vector<float> got = f32Values(reduced[r].block);
    for (size_t i = 0; i < want.size(); ++i) ASSERT_NEAR(got[i], want[i], 1e-5) << r << " " << i;
    EXPECT_EQ(reduced[r].block.data, reduced[0].block.data);
    EXPECT_GE(reduced[r].seconds, bound);
    EXPECT_LT(reduced[r].seconds, 1.5 * bound);
    EXPECT_EQ(halves[r].block.dtype, DType::F16);
    std::vector<float> part = f32Values(scattered[r].block);
    for (int i = 0; i < 40; ++i) EXPECT_NEAR(part[i], scatter[r * 40 + i], 1e-5) << r << " " << i;
  }
  EXPECT_EQ(sent[2].block.data, randomF32Array({9, 9}, 5).data);
  EXPECT_TRUE(server->running());
}

} // namespace
} // namespace chipless::test
