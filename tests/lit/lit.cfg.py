# lit configuration of the KTIR tests. Run through the build tree, whose
# lit.site.cfg.py says where ktir-opt, FileCheck and the KTIR samples are:
#   python3 /usr/lib/llvm-19/build/utils/lit/lit.py -v build/tests/lit
import os

import lit.formats

if not hasattr(config, "ktir_tools_dir"):
    lit_config.fatal("run lit on the build directory (build/tests/lit), not the source tree")

config.name = "KTIR"
# The external shell (/bin/sh) so that RUN lines may loop over the sample folder.
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".mlir"]
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py.in"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = config.ktir_lit_binary_dir

# ktir-opt from the build, FileCheck/not from LLVM 19, before anything else on PATH.
config.environment["PATH"] = os.pathsep.join(
    [config.ktir_tools_dir, config.llvm_tools_dir, os.environ.get("PATH", "")]
)

# %ktir_examples: the public KTIR samples; the feature marks whether they are present.
config.substitutions.append(("%ktir_examples", config.ktir_examples_dir))
if os.path.isdir(config.ktir_examples_dir):
    config.available_features.add("ktir-examples")
