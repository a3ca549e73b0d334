#include "sim/spyre/engine.h"

#include "sim/common/loop_floor.h"
#include "sim/common/scalar_alu.h"
#include "sim/spyre/chip.h"
#include "sim/spyre/core.h"
#include "support/error.h"
#include "support/spyrecode/disassembler.h"

#include <cstring>

namespace chipless::sim::spyre {

using namespace spyrecode;

namespace {
std::string engineLabel(int core, Unit unit, int corelet) {
  std::string s = "core " + std::to_string(core) + " " + unitName(unit);
  if (isCoreletUnit(unit)) s += std::to_string(corelet);
  return s;
}
/// What instruction `ins` is to control flow; the instructions every unit runs (scalar
/// arithmetic, control, tokens) take at least an instruction's time, the unit's own ones may
/// not (they issue and go on).
StepControl stepControl(const Instruction& ins) {
  constexpr uint32_t kEveryUnit = (1u << kUnitCount) - 1;
  StepControl c = controlOf(ins);
  c.timed = opcodeInfo(ins.op).unitMask == kEveryUnit;
  return c;
}

/// Trace track: per-core units first, then per-corelet units grouped by corelet.
int trackOf(Unit unit, int corelet) {
  if (!isCoreletUnit(unit)) return static_cast<int>(unit);
  return 3 + corelet * 3 + (static_cast<int>(unit) - static_cast<int>(Unit::Load));
}
} // namespace

Engine::Engine(sc_core::sc_module_name name, Chip& chip, Core& core, Unit unit, int corelet)
    : LaunchThread(name, chip, engineLabel(core.index(), unit, corelet),
                   core.index() * (3 + 3 * chip.arch().chip.corelets_per_core) +
                       trackOf(unit, corelet)),
      chip_(chip), core_(core), unit_(unit), corelet_(corelet), track_(trackOf(unit, corelet)) {
  SC_THREAD(serveLaunches);
}

void Engine::arm(const Program* program, Cycles start, const Partition& partition,
                 const std::vector<int64_t>* symbols) {
  armThread(program != nullptr, start);
  program_ = program;
  partition_ = partition;
  symbols_ = symbols;
  lastAsyncDone_ = start;
  pc_ = 0;
  counters_ = {};
  control_.reset(chip_.maxCycles(), chip_.arch().scalar.cycles_per_instruction,
                 "scalar instructions");
  for (auto& r : regs_) r = 0;
  regs_[kRegCore] = core_.index() - partition.coreFirst;
  regs_[kRegCorelet] = corelet_ < 0 ? 0 : corelet_;
  regs_[kRegNumCores] = partition.coreCount(chip_.arch().chip.cores);
  resetUnit();
}

int Engine::physicalCore(int64_t core, const std::string& what) const {
  const int cores = partition_.coreCount(chip_.arch().chip.cores);
  if (core < 0 || core >= cores)
    fault(what + " " + std::to_string(core) + " does not exist (0.." + std::to_string(cores - 1) +
          ")");
  return partition_.coreFirst + static_cast<int>(core);
}

void Engine::noteAsyncDone(Cycles t) {
  lastAsyncDone_ = std::max(lastAsyncDone_, t);
  chip_.noteActivity(t);
}

std::string Engine::where() const {
  return label() + " pc " + std::to_string(pc_);
}

void Engine::runProgram() {
  const auto& code = program_->code;
  const Cycles cpi = chip_.arch().scalar.cycles_per_instruction;
  while (pc_ < code.size()) {
    if (chip_.aborting()) throw LaunchAborted{};
    const Instruction& ins = code[pc_];
    current_ = &ins;
    ++counters_.instructions;
    checkLimits();
    if (scalarOp(ins)) {
      local_ += cpi;
      continue;
    }
    executeUnitOp(ins);
    ++pc_;
  }
  current_ = nullptr;
}

int64_t Engine::arg(const Instruction& ins, size_t index) const {
  const Operand& o = ins.operands[index];
  int64_t v = o.imm;
  if (o.reg >= 0) v += regs_[o.reg];
  if (o.sym >= 0) v += (*symbols_)[static_cast<size_t>(o.sym)];
  return v;
}

void Engine::fault(const std::string& message) const {
  std::string where = this->where();
  if (current_) where += " (" + std::string(opcodeInfo(current_->op).mnemonic) + ")";
  throw Error(where + ": " + message);
}

void Engine::stallUntil(Cycles t) {
  if (t > local_) {
    counters_.stall += t - local_;
    local_ = t;
  }
}

void Engine::busySpan(const char* name, Cycles start, Cycles end) {
  counters_.busy += end - start;
  traceSpan(name, start, end);
}

void Engine::traceSpan(const std::string& name, Cycles start, Cycles end) {
  chip_.traceSpan(core_.index(), track_, name, start, end, static_cast<int64_t>(pc_));
}

bool Engine::scalarOp(const Instruction& ins) {
  auto rd = [&]() -> int64_t& { return regs_[ins.operands[0].reg]; };
  auto a = [&] { return arg(ins, 1); };
  auto b = [&] { return arg(ins, 2); };
  if (std::optional<ScalarAluOp> alu = aluOp(ins.op)) {
    std::optional<int64_t> v = scalarAlu(*alu, a(), b());
    if (!v) fault("division by zero");
    rd() = *v;
    ++pc_;
    return true;
  }
  ControlStep c = control_.step(
      ins.op, pc_, [&](size_t i) { return arg(ins, i); },
      [&](size_t i) { return ins.operands[i].imm; }, limitAt_ - local_,
      [&](size_t loop, size_t end) {
        return loopIterationFloor(loop, end,
                                  [&](size_t p) { return stepControl(program_->code[p]); });
      });
  if (c.control) {
    if (!c.fault.empty()) fault(c.fault);
    pc_ = c.jump ? *c.jump : pc_ + 1;
    return true;
  }
  switch (ins.op) {
  case Opcode::Li:
    rd() = a();
    break;
  case Opcode::Nop: {
    int64_t n = arg(ins, 0);
    if (n < 0) fault("nop with negative cycles " + std::to_string(n));
    local_ += static_cast<Cycles>(n);
    break;
  }
  case Opcode::TSend: {
    int64_t token = arg(ins, 0), core = arg(ins, 1);
    TokenBank* bank = &core_.tokens();
    Cycles at = local_ + chip_.arch().sync.token_latency_cycles;
    if (core >= 0 && core != regs_[kRegCore]) {
      const int cores = partition_.coreCount(chip_.arch().chip.cores);
      if (core >= cores)
        fault("tsend to core " + std::to_string(core) + " of " + std::to_string(cores));
      const int target = partition_.coreFirst + static_cast<int>(core);
      bank = &chip_.core(target).tokens();
      at += chip_.ringLatency(core_.index(), target);
    }
    if (token < 0 || token >= bank->size())
      fault("token " + std::to_string(token) + " out of range (0.." +
            std::to_string(bank->size() - 1) + ")");
    bank->send(static_cast<int>(token), at);
    break;
  }
  case Opcode::LdScalar: {
    const int64_t addr = a();
    const int64_t size = static_cast<int64_t>(dtypeSize(*ins.dtype));
    if (addr < 0 || addr + size > chip_.arch().scratchpad.bytes)
      fault("scratchpad address " + std::to_string(addr) + " outside the scratchpad (0.." +
            std::to_string(chip_.arch().scratchpad.bytes) + ")");
    if (addr % size != 0)
      fault("scratchpad address " + std::to_string(addr) + " is not a multiple of the " +
            std::to_string(size) + "-byte element");
    int32_t v = 0;
    if (!chip_.timingOnly()) std::memcpy(&v, core_.scratchpad() + addr, sizeof v);
    rd() = v;
    break;
  }
  case Opcode::TWait: {
    int64_t token = arg(ins, 0);
    TokenBank& bank = core_.tokens();
    if (token < 0 || token >= bank.size())
      fault("token " + std::to_string(token) + " out of range (0.." +
            std::to_string(bank.size() - 1) + ")");
    while (bank.pending(static_cast<int>(token)) == 0)
      blockWith(bank.changed(),
                [token] { return "token " + std::to_string(token) + " (none sent)"; });
    Cycles t = bank.take(static_cast<int>(token));
    if (t > local_ && chip_.tracing())
      chip_.traceInstant(core_.index(), track_, "twait " + std::to_string(token), t, t - local_);
    stallUntil(t);
    break;
  }
  default:
    return false;
  }
  ++pc_;
  return true;
}

} // namespace chipless::sim::spyre
