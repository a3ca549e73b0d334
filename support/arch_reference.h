#pragma once
/// The parameter reference generated from the chips' parameter tables
/// (docs/arch-parameters.md, written by `chipless-arch reference`): for every parameter its
/// key, type and range, unit, role, source and meaning, section by section.
#include "support/param_table.h"

#include <string>
#include <vector>

namespace chipless {

/// One chip's part of the reference.
struct ArchReferenceChip {
  std::string title;       ///< "IBM Spyre"
  std::string files;       ///< "models/hw/spyre.yaml"
  std::string declaration; ///< "support/spyre_params.def"
  const std::vector<ParamSection>* sections;
  const std::vector<ParamDecl>* schema;
};

/// The whole reference as Markdown: an introduction to roles and sources, then one part per
/// chip with a table per section.
std::string archReferenceMarkdown(const std::vector<ArchReferenceChip>& chips);

/// The reference for the bundled chips (Spyre and TPU), as docs/arch-parameters.md holds it.
std::string bundledArchReferenceMarkdown();

} // namespace chipless
