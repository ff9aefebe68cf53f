// An older recording's captures under the same session name: BLAScope's own call-ID folders go,
// anything else in the folder stays.
#include <gtest/gtest.h>

#include <filesystem>
#include <iterator>
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

  EarlierCaptures earlier(folder);
  EXPECT_FALSE(fs::exists(folder / "call-1"));  // set aside at once
  // The new program's own, however soon it writes it (call-1 again, and a new one).
  capture_in(folder / "call-1", false);
  capture_in(folder / "call-6", false);
  EXPECT_EQ(earlier.discard(), 3u);
  EXPECT_TRUE(fs::exists(folder / "call-1" / "workload.json"));
  EXPECT_FALSE(fs::exists(folder / "call-1" / "c.npy"));  // the earlier call-1's is gone
  EXPECT_FALSE(fs::exists(folder / "call-7"));
  EXPECT_FALSE(fs::exists(folder / "call-22"));
  for (const char* kept : {"call-3", "call-8", "call-9", "call-x", "calls", "call-4", "call-5", "call-6"}) {
    EXPECT_TRUE(fs::exists(fs::symlink_status(folder / kept))) << kept;
  }
  EXPECT_TRUE(fs::exists(tmp.path() / "elsewhere" / "call-5" / "a.npy"));
  EXPECT_TRUE(fs::exists(folder / "call-3" / "a.npy"));
  EXPECT_EQ(std::distance(fs::directory_iterator(folder), fs::directory_iterator()), 9);  // nothing hidden left
}

// A command that cannot start leaves the earlier recording's captures as they were.
TEST(CaptureFolder, CapturesNotDiscardedAreRestored) {
  TempDir tmp;
  const fs::path folder = tmp.path() / "run.captures";
  capture_in(folder / "call-2", true);
  capture_in(folder / "call-4", false);
  {
    EarlierCaptures earlier(folder);
    EXPECT_FALSE(fs::exists(folder / "call-2"));
  }
  EXPECT_TRUE(fs::exists(folder / "call-2" / "c.npy"));
  EXPECT_TRUE(fs::exists(folder / "call-4" / "a.npy"));
  EXPECT_EQ(std::distance(fs::directory_iterator(folder), fs::directory_iterator()), 2);
}

// Nothing to set aside: nothing is made (a folder made for this recording stays empty), and a
// folder that is not there, or a file of its name, is left alone.
TEST(CaptureFolder, NoCapturesNoFolderOrAFileOfItsNameIsLeftAlone) {
  TempDir tmp;
  fs::create_directories(tmp.path() / "empty.captures");
  {
    EarlierCaptures earlier(tmp.path() / "empty.captures");
    EXPECT_EQ(earlier.discard(), 0u);
  }
  EXPECT_TRUE(fs::is_empty(tmp.path() / "empty.captures"));
  EXPECT_EQ(EarlierCaptures(tmp.path() / "none.captures").discard(), 0u);
  EXPECT_FALSE(fs::exists(tmp.path() / "none.captures"));
  write_file(tmp.file("file.captures"), "x");
  EXPECT_EQ(EarlierCaptures(tmp.path() / "file.captures").discard(), 0u);
  EXPECT_EQ(read_file(tmp.file("file.captures")), "x");
}

// A recorder killed after setting captures aside left them hidden: the next recording counts
// them as earlier ones.
TEST(CaptureFolder, CapturesLeftAsideByAKilledRecorderGoWithTheNextOnes) {
  TempDir tmp;
  const fs::path folder = tmp.path() / "run.captures";
  capture_in(folder / ".earlier-captures" / "call-1", false);
  capture_in(folder / "call-2", false);
  EarlierCaptures earlier(folder);
  EXPECT_EQ(earlier.discard(), 2u);
  EXPECT_TRUE(fs::is_empty(folder));
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
