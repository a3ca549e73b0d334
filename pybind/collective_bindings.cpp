/// chipless._native.CollectiveGroup: one rank of a `tpu_dist` or `spyre_dist` group on a
/// device server
/// (runtime/remote/collective_group.h), for the torch.distributed backend
/// (python/chipless/torch/distributed.py).
#include "pybind/arrays.h"
#include "pybind/bindings.h"
#include "runtime/remote/collective_group.h"

#include <memory>
#include <pybind11/stl.h>

namespace py = pybind11;

namespace chipless::python {

namespace {

runtime::remote::CollectiveKind kindNamed(const std::string& name) {
  using K = runtime::remote::CollectiveKind;
  for (K k :
       {K::AllReduce, K::AllGather, K::ReduceScatter, K::Broadcast, K::Barrier, K::Send, K::Recv})
    if (name == runtime::remote::collectiveName(k)) return k;
  throw Error("unknown collective '" + name + "'");
}

} // namespace

void bindCollectives(py::module_& m) {
  py::class_<runtime::remote::CollectiveGroup, std::shared_ptr<runtime::remote::CollectiveGroup>>(
      m, "CollectiveGroup", "One rank of a collective group on a chipless-device-server.")
      .def(py::init([](const std::string& server, const std::string& group, int rank, int size,
                       const std::string& network) {
             using N = runtime::remote::CollectiveNetwork;
             if (network != "ici" && network != "ring")
               throw Error("CollectiveGroup: network '" + network + "' is not 'ici' or 'ring'");
             auto address = runtime::remote::parseServerAddress(server, "device server");
             py::gil_scoped_release unlocked;
             return std::make_shared<runtime::remote::CollectiveGroup>(
                 address, group, rank, size, network == "ring" ? N::Ring : N::Ici);
           }),
           py::arg("server"), py::arg("group"), py::arg("rank"), py::arg("size"),
           py::arg("network") = "ici")
      .def(
          "run",
          [](runtime::remote::CollectiveGroup& g, const std::string& kind, int root,
             const py::array& block, uint32_t tag) {
            NpyArray in = npyFromNumpy(block, "collective block");
            runtime::remote::CollectiveResult r;
            {
              py::gil_scoped_release unlocked;
              r = g.run(kindNamed(kind), root, in, tag);
            }
            return py::make_tuple(numpyFromNpy(std::move(r.block)), r.seconds, r.source);
          },
          py::arg("kind"), py::arg("root"), py::arg("block"), py::arg("tag") = 0,
          "Runs the group's next collective with this rank's block: (result, modelled seconds, "
          "the other rank of a send or receive). For send and recv, root is the other rank; "
          "a recv from root -1 takes the first send to this rank.")
      .def_property_readonly("rank", &runtime::remote::CollectiveGroup::rank)
      .def_property_readonly("size", &runtime::remote::CollectiveGroup::size);
}

} // namespace chipless::python
