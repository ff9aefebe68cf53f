#include "results/trace_writer.h"

#include <map>

namespace blasscope::core {

using nlohmann::json;

namespace {

constexpr int kPid = 1;

int track_of(const std::string& device) {
  return device == "gpu" ? 2 : 1;
}

double micros(const json& event) {
  return event.value("t", 0.0) * 1e6;
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
  std::map<std::pair<std::size_t, std::string>, json> started;
  double last_t = 0;
  for (const json& e : result.events) {
    const std::string type = e.value("event", "");
    last_t = std::max(last_t, micros(e));
    if (type == "kernel_started") {
      started[{e.value("op", std::size_t{0}), e.value("device", "cpu")}] = e;
    } else if (type == "kernel_finished") {
      const json& r = e.at("record");
      const auto key = std::make_pair(r.value("op", std::size_t{0}), r.value("device", "cpu"));
      const auto it = started.find(key);
      const double begin = it != started.end() ? micros(it->second) : micros(e);
      json args = {{"op", r["op"]},      {"dtype", r["dtype"]}, {"status", r["status"]}, {"m", r["m"]},
                   {"n", r["n"]},        {"k", r["k"]},         {"gflops", r["gflops"]}, {"seconds", r["seconds"]},
                   {"error", r["error"]}};
      events.push_back({{"name", r.value("kernel", "") + (r.value("kernel", "").empty() ? r.value("op_kind", "") : "")},
                        {"cat", r.value("op_kind", "op")},
                        {"ph", "X"},
                        {"ts", begin},
                        {"dur", std::max(0.0, micros(e) - begin)},
                        {"pid", kPid},
                        {"tid", track_of(key.second)},
                        {"args", args}});
      if (it != started.end()) started.erase(it);
    } else if (type == "memory") {
      events.push_back({{"name", "host memory"},
                        {"ph", "C"},
                        {"ts", micros(e)},
                        {"pid", kPid},
                        {"args", {{"bytes", e.value("host_bytes", std::uint64_t{0})}}}});
    }
  }
  if (result.crash) {
    events.push_back({{"name", "worker crashed: " + result.crash->signal},
                      {"ph", "i"},
                      {"s", "p"},
                      {"ts", last_t},
                      {"pid", kPid},
                      {"tid", 1}});
    // A kernel that never finished still shows, up to the crash.
    for (const auto& [key, e] : started) {
      events.push_back({{"name", e.value("kernel", "")},
                        {"cat", e.value("op_kind", "op")},
                        {"ph", "X"},
                        {"ts", micros(e)},
                        {"dur", std::max(0.0, last_t - micros(e))},
                        {"pid", kPid},
                        {"tid", track_of(key.second)},
                        {"args", {{"op", key.first}, {"status", "crashed"}}}});
    }
  }
  return {{"traceEvents", events}, {"displayTimeUnit", "ms"}};
}

}  // namespace blasscope::core
