#pragma once
/// `tpu_dist`'s network: collectives run on emulated TPU systems of one chip per rank, over
/// their ICI links (ici.allreduce, ici.allgather, ici.reducescatter, ici.send). The ICI sums
/// f32 and i32; other element types move as raw 32-bit words.
#include "runtime/remote/collectives.h"

#include <map>
#include <memory>
#include <string>

namespace chipless::runtime::remote {

class IciCollectives : public CollectiveService {
public:
  /// Systems are opened on the TPU description `arch` with device numbers from `firstIndex`
  /// up (apart from the server's own devices); program directories go under `workDirectory`.
  IciCollectives(ArchDescription arch, int firstIndex, std::string workDirectory);
  ~IciCollectives() override;

protected:
  bool sums(DType dtype) const override;
  CollectiveKind programKind(CollectiveKind kind) const override;
  int64_t paddedPart(CollectiveKind program, DType wire, int ranks,
                     int64_t elements) const override;
  Ran launch(CollectiveKind program, DType wire, const NpyArray& x, int64_t part) override;

private:
  struct System;
  /// The system of `chips` chips, opened the first time a group of that size needs one.
  System& system(int chips);
  /// The prepared program for `program` of `wire` elements on `s`.
  Program& prepared(System& s, CollectiveKind program, DType wire);

  ArchDescription arch_;
  int firstIndex_;
  std::string workDirectory_;
  std::map<int, std::unique_ptr<System>> systems_;
};

} // namespace chipless::runtime::remote
