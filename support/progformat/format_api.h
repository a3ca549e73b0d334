#pragma once
/// The public functions every program format has, defined once. A chip's public headers
/// declare them in its namespace with its own types and documentation (assembler.h:
/// assemble; disassembler.h: formatOperand, disassemble; binary.h: encodeBinary,
/// decodeBinary; plan.h: parsePlan, planToJson, addStandardSteps; directory.h: readJob,
/// stageJob, writeJob), and the chip's toolchain.cpp defines them all with
/// CHIPLESS_PROGFORMAT_FUNCTIONS(Traits): each forwards to the template of the same name in
/// this folder, over the chip's traits (isa_table.h).
#include "support/atomic_file.h"
#include "support/progformat/asm_core.h"
#include "support/progformat/binary_codec.h"
#include "support/progformat/disasm_core.h"
#include "support/progformat/job_directory.h"
#include "support/progformat/plan.h"
#include "support/progformat/plan_json.h"

#include <string>

/// Defines, in the enclosing (chip) namespace, the functions above for the traits `T`.
#define CHIPLESS_PROGFORMAT_FUNCTIONS(T)                                                           \
  T::Job assemble(const std::string& text, const std::string& path,                                \
                  const T::AssembleOptions& options) {                                             \
    return ::chipless::progformat::Assembler<T>(path, options).run(text);                          \
  }                                                                                                \
  std::string formatOperand(const T::JobBinary& bin, const ::chipless::progformat::OperandDecl& d, \
                            const ::chipless::progformat::Operand& o) {                            \
    return ::chipless::progformat::formatOperand<T>(bin, d, o);                                    \
  }                                                                                                \
  std::string disassemble(const T::Job& job) {                                                     \
    return ::chipless::progformat::disassemble<T>(job);                                            \
  }                                                                                                \
  std::string encodeBinary(const T::JobBinary& bin) {                                              \
    return ::chipless::progformat::encodeBinary<T>(bin);                                           \
  }                                                                                                \
  T::JobBinary decodeBinary(const std::string& bytes, const std::string& path) {                   \
    return ::chipless::progformat::decodeBinary<T>(bytes, path);                                   \
  }                                                                                                \
  T::JobPlan parsePlan(const std::string& text, const std::string& path) {                         \
    return ::chipless::progformat::parsePlan<T>(text, path);                                       \
  }                                                                                                \
  std::string planToJson(const T::JobPlan& plan) {                                                 \
    return ::chipless::progformat::planToJson<T>(plan);                                            \
  }                                                                                                \
  void addStandardSteps(T::JobPlan& plan, uint64_t programPtr, int64_t binarySize,                 \
                        uint64_t alignment) {                                                      \
    ::chipless::progformat::addStandardSteps(plan, programPtr, binarySize, alignment);             \
  }                                                                                                \
  T::Job readJob(const std::string& planPath) {                                                    \
    return ::chipless::progformat::readJob<T>(planPath);                                           \
  }                                                                                                \
  void stageJob(::chipless::OutputSet& out, const std::string& dir, const T::Job& job) {           \
    ::chipless::progformat::stageJob<T>(out, dir, job);                                            \
  }                                                                                                \
  void writeJob(const std::string& dir, const T::Job& job) {                                       \
    ::chipless::progformat::writeJob<T>(dir, job);                                                 \
  }
