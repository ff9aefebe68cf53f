#include "results/trace_writer.h"

#include <map>

namespace blasscope::core {

using nlohmann::json;

namespace {

constexpr int kPid = 1;

int track_of(Device device) {
  return device == Device::Gpu ? 2 : 1;
}

double micros(const RunEvent& event) {
  return event.t * 1e6;
}

json optional_number(const auto& value) {
  return value ? json(*value) : json();
}

}  // namespace

json chrome_trace(const RunResult& result) {
  json events = json::array();
  events.push_back(
      {{"name", "process_name"}, {"ph", "M"}, {"pid", kPid}, {"args", {{"name", "BLAScope: " + result.workload}}}});
  events.push_back(
      {{"name", "thread_name"}, {"ph", "M"}, {"pid", kPid}, {"tid", 1}, {"args", {{"name", "CPU kernels"}}}});
  events.push_back(
      {{"name", "thread_name"}, {"ph", "M"}, {"pid", kPid}, {"tid", 2}, {"args", {{"name", "GPU kernels"}}}});
  std::map<std::pair<std::size_t, Device>, const RunEvent*> started;
  double last_t = 0;
  for (const RunEvent& e : result.events) {
    last_t = std::max(last_t, micros(e));
    if (const auto* s = e.as<events::KernelStarted>()) {
      started[{s->op, s->device}] = &e;
    } else if (const auto* finished = e.as<events::KernelFinished>()) {
      const KernelRecord& r = finished->record;
      const auto key = std::make_pair(r.op, r.device);
      const auto it = started.find(key);
      const double begin = it != started.end() ? micros(*it->second) : micros(e);
      json args = {{"op", r.op},
                   {"dtype", r.dtype},
                   {"status", r.status},
                   {"m", optional_number(r.m)},
                   {"n", optional_number(r.n)},
                   {"k", optional_number(r.k)},
                   {"gflops", optional_number(r.gflops)},
                   {"seconds", optional_number(r.seconds)},
                   {"error", optional_number(r.error)}};
      events.push_back({{"name", r.kernel.empty() ? text(r.op_kind) : r.kernel},
                        {"cat", r.op_kind},
                        {"ph", "X"},
                        {"ts", begin},
                        {"dur", std::max(0.0, micros(e) - begin)},
                        {"pid", kPid},
                        {"tid", track_of(key.second)},
                        {"args", args}});
      if (it != started.end()) started.erase(it);
    } else if (const auto* memory = e.as<events::HostMemory>()) {
      events.push_back({{"name", "host memory"},
                        {"ph", "C"},
                        {"ts", micros(e)},
                        {"pid", kPid},
                        {"args", {{"bytes", memory->host_bytes}}}});
    }
  }
  if (result.crash) {
    const bool hung = result.crash->signal == kTimeLimitEnd;
    events.push_back(
        {{"name", hung ? std::string("op stopped at its time limit") : "worker crashed: " + result.crash->signal},
         {"ph", "i"},
         {"s", "p"},
         {"ts", last_t},
         {"pid", kPid},
         {"tid", 1}});
    // A kernel that never finished still shows, up to the crash.
    for (const auto& [key, e] : started) {
      const auto& s = *e->as<events::KernelStarted>();
      events.push_back({{"name", s.kernel},
                        {"cat", s.op_kind},
                        {"ph", "X"},
                        {"ts", micros(*e)},
                        {"dur", std::max(0.0, last_t - micros(*e))},
                        {"pid", kPid},
                        {"tid", track_of(key.second)},
                        {"args", {{"op", key.first}, {"status", hung ? "hung" : "crashed"}}}});
    }
  }
  return {{"traceEvents", events}, {"displayTimeUnit", "ms"}};
}

std::string chrome_trace_text(const RunResult& result) {
  return chrome_trace(result).dump(1, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace blasscope::core
