// libFuzzer harness: triage of any log text, read whole and in pieces (the windowed reading of
// long lines), and the scenario that reproduces each match.
#include "diagnose/triage.h"
#include "fuzz_input.h"

using namespace blasscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = fuzz::text_of(data, size);
  (void)core::looks_binary(text.substr(0, 4096));
  for (const core::TriageMatch& match : core::triage_text(text)) (void)core::reproducing_scenario(match.id, match.line);
  // The same text in pieces whose size the input's first byte picks.
  const std::size_t piece = size == 0 ? 1 : 1 + data[0] % 61;
  core::Triage pieces;
  for (std::size_t at = 0; at < size; at += piece) pieces.feed(text.substr(at, piece));
  (void)pieces.finish();
  return 0;
}
