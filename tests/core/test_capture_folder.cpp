// An older recording's captures under the same session name: BLAScope's own call-ID folders go,
// anything else in the folder stays.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <string>

#include "record/capture_folder.h"
#include "test_files.h"

namespace blasscope::record {
namespace {

namespace fs = std::filesystem;
using test::read_file;
using test::TempDir;
using test::write_file;

void capture_in(const fs::path& dir, bool with_c) {
  fs::create_directories(dir);
  write_file((dir / "a.npy").string(), "npy");
  if (with_c) write_file((dir / "c.npy").string(), "npy");
  write_file((dir / "workload.json").string(), "{\"name\": \"call 1\",\n \"recorded_call\": 1,\n \"ops\": []}");
}

TEST(CaptureFolder, OnlyAnOlderRecordingsOwnCapturesAreRemoved) {
  TempDir tmp;
  const fs::path folder = tmp.path() / "run.captures";
  capture_in(folder / "call-1", true);
  capture_in(folder / "call-22", false);
  capture_in(folder / "call-3", false);
  write_file((folder / "call-3" / "notes.txt").string(), "the user's");  // not only ours: stays
  capture_in(folder / "call-7", false);
  write_file((folder / "call-7" / "b.npy.part").string(), "np");  // its program was killed writing it: goes
  capture_in(folder / "call-8", false);
  fs::create_symlink(folder / "call-3" / "notes.txt", folder / "call-8" / "b.npy");  // a link: stays
  capture_in(folder / "call-9", false);
  write_file((folder / "call-9" / "workload.json").string(), "{\"name\": \"mine\", \"ops\": []}");  // the user's: stays
  capture_in(folder / "call-x", false);  // not a call's name: stays
  capture_in(folder / "calls", false);
  write_file((folder / "call-4").string(), "a file, not a folder");
  capture_in(tmp.path() / "elsewhere" / "call-5", false);
  fs::create_directory_symlink(tmp.path() / "elsewhere" / "call-5", folder / "call-5");  // a link: stays
  // Written by a recording running now (after `since`): stays.
  const auto since = fs::file_time_type::clock::now();
  capture_in(folder / "call-6", false);
  fs::last_write_time(folder / "call-6", since + std::chrono::seconds(1));

  EXPECT_EQ(remove_earlier_captures(folder, since), 3u);
  EXPECT_FALSE(fs::exists(folder / "call-1"));
  EXPECT_FALSE(fs::exists(folder / "call-7"));
  EXPECT_FALSE(fs::exists(folder / "call-22"));
  for (const char* kept : {"call-3", "call-8", "call-9", "call-x", "calls", "call-4", "call-5", "call-6"}) {
    EXPECT_TRUE(fs::exists(fs::symlink_status(folder / kept))) << kept;
  }
  EXPECT_TRUE(fs::exists(tmp.path() / "elsewhere" / "call-5" / "a.npy"));
  EXPECT_TRUE(fs::exists(folder / "call-3" / "a.npy"));
}

// A recording started at once after another (a script's loop) still tells the other's captures,
// dated within the same tick of the kernel's clock, from its own written just after it starts.
TEST(CaptureFolder, TheEpochPartsCapturesWrittenJustBeforeItFromThoseJustAfter) {
  TempDir tmp;
  const fs::path folder = tmp.path() / "loop.captures";
  for (int round = 0; round < 20; ++round) {
    const fs::path before = folder / ("call-" + std::to_string(2 * round + 1));
    const fs::path after = folder / ("call-" + std::to_string(2 * round + 2));
    capture_in(before, false);
    const auto epoch = capture_epoch(folder);
    capture_in(after, false);
    EXPECT_LE(fs::last_write_time(before), epoch) << round;
    EXPECT_GT(fs::last_write_time(after), epoch) << round;
    // This round's earlier one, and the last round's own (earlier now).
    EXPECT_EQ(remove_earlier_captures(folder, epoch), round == 0 ? 1u : 2u) << round;
    EXPECT_FALSE(fs::exists(before));
    EXPECT_TRUE(fs::exists(after / "workload.json"));
  }
}

// With no capture in the folder yet, whatever is found there later is the new recording's own,
// however soon its program writes it.
TEST(CaptureFolder, AFolderWithoutCapturesHasNothingEarlier) {
  TempDir tmp;
  const fs::path folder = tmp.path() / "new.captures";
  const auto epoch = capture_epoch(folder);
  capture_in(folder / "call-1", false);
  EXPECT_EQ(remove_earlier_captures(folder, epoch), 0u);
  EXPECT_TRUE(fs::exists(folder / "call-1" / "workload.json"));
}

TEST(CaptureFolder, NoFolderOrAFileOfItsNameIsLeftAlone) {
  TempDir tmp;
  const auto now = fs::file_time_type::clock::now();
  EXPECT_EQ(remove_earlier_captures(tmp.path() / "none.captures", now), 0u);
  write_file(tmp.file("file.captures"), "x");
  EXPECT_EQ(remove_earlier_captures(tmp.path() / "file.captures", now), 0u);
  EXPECT_EQ(read_file(tmp.file("file.captures")), "x");
}

TEST(CaptureFolder, OnlyAnEmptyFolderIsRemovedAsEmpty) {
  TempDir tmp;
  fs::create_directories(tmp.path() / "empty.captures");
  fs::create_directories(tmp.path() / "full.captures" / "x");
  fs::create_directories(tmp.path() / "target");
  fs::create_directory_symlink(tmp.path() / "target", tmp.path() / "link.captures");  // empty, but a user's link
  write_file(tmp.file("file.captures"), "x");
  for (const char* name : {"empty.captures", "full.captures", "link.captures", "file.captures", "none.captures"}) {
    remove_if_empty_folder(tmp.path() / name);
  }
  EXPECT_FALSE(fs::exists(tmp.path() / "empty.captures"));
  EXPECT_TRUE(fs::exists(tmp.path() / "full.captures" / "x"));
  EXPECT_TRUE(fs::is_symlink(tmp.path() / "link.captures"));
  EXPECT_EQ(read_file(tmp.file("file.captures")), "x");
}

}  // namespace
}  // namespace blasscope::record
