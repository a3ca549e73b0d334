#include "sim/common/launch_host.h"

#include "sim/common/launch_thread.h"
#include "support/error.h"

#include <algorithm>
#include <cstdio>
#include <unistd.h>

namespace chipless::sim {

namespace {

/// "1.5", "30", "0.25": seconds as the user wrote them.
std::string formatSeconds(double s) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", s);
  return text;
}

} // namespace

LaunchHost::LaunchHost(double clockGhz, bool timingOnly, std::string progressLabel)
    : clockGhz_(clockGhz), periodPs_(1000.0 / clockGhz), timingOnly_(timingOnly),
      progressLabel_(std::move(progressLabel)), arbiter_("arbiter"), launchEvent_("launch"),
      abortEvent_("abort"), progressToTty_(isatty(2) != 0) {}

LaunchHost::~LaunchHost() = default;

Cycles LaunchHost::now() const {
  return sc_core::sc_time_stamp().to_double() / periodPs_ - origin_;
}

sc_core::sc_time LaunchHost::toScTime(Cycles c) const {
  return sc_core::sc_time(c * periodPs_, sc_core::SC_PS);
}

void LaunchHost::reportFault(const std::string& message, std::optional<int64_t> trapCode) {
  if (fault_.empty()) {
    fault_ = message;
    faultTrap_ = trapCode;
  }
  aborting_ = true;
  abortEvent_.notify(sc_core::SC_ZERO_TIME);
}

LaunchTimes LaunchHost::runLaunch(size_t symbolCount, const std::vector<int64_t>& symbolValues,
                                  TraceWriter* trace, const std::function<void()>& arm) {
  if (symbolValues.size() != symbolCount)
    throw Error("launch: " + std::to_string(symbolValues.size()) + " symbol values for " +
                std::to_string(symbolCount) + " symbols");
  auto hostStart = std::chrono::steady_clock::now();
  progressStart_ = progressLast_ = hostStart;
  progressCycles_ = 0;
  symbols_ = &symbolValues;
  // Threads run ahead of SystemC time, so the previous launch may end after now().
  const Cycles previousEnd = std::max(now(), lastActivity_);
  origin_ = previousEnd + origin_;
  launchStart_ = lastActivity_ = 0;
  trace_ = trace;
  fault_.clear();
  faultTrap_.reset();
  aborting_ = false;
  arm();
  if (trace_) nameTraceTracks(*trace_);

  if (started_) launchEvent_.notify(sc_core::SC_ZERO_TIME);
  started_ = true;
  sc_core::sc_start();

  if (progressToTty_ && progressLast_ != progressStart_) std::fprintf(stderr, "\n");
  if (!fault_.empty()) abortLaunch(fault_);
  // Every thread that finished noted its time; one still running waits for what never comes.
  std::vector<const LaunchThread*> blocked;
  for (const LaunchThread* t : threads_)
    if (t->state() == LaunchThread::State::Running) blocked.push_back(t);
  if (!blocked.empty()) abortLaunch(deadlockReport(blocked));
  LaunchTimes times;
  times.cycles = lastActivity_ - launchStart_;
  if (trace_) flushResourceTraces();
  times.hostSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - hostStart).count();
  trace_ = nullptr;
  return times;
}

void LaunchHost::abortLaunch(std::string message) {
  aborting_ = true;
  abortEvent_.notify(sc_core::SC_ZERO_TIME);
  sc_core::sc_start();
  aborting_ = false;
  fault_.clear();
  std::optional<int64_t> trap = faultTrap_;
  faultTrap_.reset();
  trace_ = nullptr;
  resourceLog_.clear();
  if (trap) throw ProgramTrap(message, *trap);
  throw Error(message);
}

std::string LaunchHost::deadlockReport(const std::vector<const LaunchThread*>& blocked) {
  constexpr size_t kShown = 24;
  std::string msg = "deadlock: the program can never finish; " + std::to_string(blocked.size()) +
                    " engine(s) are blocked:";
  for (size_t i = 0; i < blocked.size(); ++i) {
    if (i == kShown) {
      msg += "\n  ... and " + std::to_string(blocked.size() - kShown) + " more";
      break;
    }
    const LaunchThread& t = *blocked[i];
    msg += "\n  " + t.where() + ": waiting for " +
           (t.blockedOn().empty() ? std::string("an event") : t.blockedOn());
  }
  return msg;
}

void LaunchHost::progress() {
  auto t = std::chrono::steady_clock::now();
  if (t - progressLast_ < (progressToTty_ ? std::chrono::seconds(1) : std::chrono::seconds(60)))
    return;
  const double host = std::chrono::duration<double>(t - progressStart_).count();
  const double window = std::chrono::duration<double>(t - progressLast_).count();
  const double simulated = now() - launchStart_;
  const double rate = window > 0 ? (simulated - progressCycles_) / window : 0;
  progressLast_ = t;
  progressCycles_ = simulated;
  std::fprintf(stderr, progressToTty_ ? "\r[%s] %.3f M cycles simulated, %.1f s, %.2f M cycles/s"
                                      : "[%s] %.3f M cycles simulated, %.1f s, %.2f M cycles/s\n",
               progressLabel_.c_str(), simulated / 1e6, host, rate / 1e6);
  std::fflush(stderr);
}

void LaunchHost::checkLimits(const LaunchThread& thread, Cycles local) {
  if (maxCycles_ > 0 && local - launchStart_ > maxCycles_)
    throw Error("the run passed --max-cycles " + std::to_string(static_cast<int64_t>(maxCycles_)) +
                " without finishing (" + thread.where() + " reached cycle " +
                std::to_string(static_cast<int64_t>(local - launchStart_)) + "); " +
                enginesReport());
  // Host time (and progress lines): the threads call this every 4096 instructions.
  progress();
  if (timeoutSeconds_ <= 0) return;
  const double host =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - progressStart_).count();
  if (host > timeoutSeconds_)
    throw Error("the run passed --timeout " + formatSeconds(timeoutSeconds_) +
                " s of host time at simulated cycle " +
                std::to_string(static_cast<int64_t>(local - launchStart_)) + "; " + enginesReport());
}

std::string LaunchHost::enginesReport() const {
  constexpr size_t kShown = 24;
  std::string msg = "engines still running:";
  size_t shown = 0, running = 0;
  for (const LaunchThread* t : threads_) {
    if (t->state() != LaunchThread::State::Running) continue;
    ++running;
    if (shown == kShown) continue;
    ++shown;
    msg += "\n  " + t->where() + ": at cycle " +
           std::to_string(static_cast<int64_t>(t->localTime() - launchStart_));
    if (!t->blockedOn().empty()) msg += ", waiting for " + t->blockedOn();
  }
  if (running > shown) msg += "\n  ... and " + std::to_string(running - shown) + " more";
  return msg;
}

// ---- tracing ------------------------------------------------------------------------------

void LaunchHost::traceSpan(int pid, int track, const std::string& name, Cycles start, Cycles end,
                           int64_t pc) {
  if (!trace_) return;
  trace_->complete(pid, track, name, toUs(start), toUs(end) - toUs(start), {{"pc", pc}});
}

void LaunchHost::traceInstant(int pid, int track, const std::string& name, Cycles t, Cycles stall) {
  if (!trace_) return;
  trace_->instant(pid, track, name, toUs(t), {{"stall_cycles", stall}});
}

void LaunchHost::traceResource(Cycles start, double bytes, const Timeline& resource, int pid) {
  if (!trace_) return;
  ResourceLog& log = resourceLog_[resource.name()];
  log.resource = &resource;
  log.pid = pid;
  log.busy.emplace_back(start, start + bytes / resource.bytesPerCycle());
}

void LaunchHost::flushResourceTraces() {
  // Reservations fill gaps, so they are noted out of order: sort and merge them first.
  for (auto& [name, log] : resourceLog_) {
    std::sort(log.busy.begin(), log.busy.end());
    const double gbs = log.resource->bytesPerCycle() * clockGhz_;
    for (size_t i = 0; i < log.busy.size();) {
      Cycles start = log.busy[i].first, end = log.busy[i].second;
      for (++i; i < log.busy.size() && log.busy[i].first <= end; ++i)
        end = std::max(end, log.busy[i].second);
      trace_->counter(log.pid, name, toUs(start), "GB/s", gbs);
      trace_->counter(log.pid, name, toUs(end), "GB/s", 0);
    }
  }
  resourceLog_.clear();
}

} // namespace chipless::sim
