#!/usr/bin/env python3
"""Every input that once crashed a reader (tests/fuzz/regressions) is refused by the CLI with
exit status 3 and a one-line reason on stderr: no abort, no crash, no hang. A file named
degraded-* is read (exit 0) with its bad part reported as not read. The GUI opens the same
files through the same readers (core::open_document).

usage: test_hostile_inputs_cli.py BLASSCOPE_CLI REGRESSIONS_DIR
"""
import os
import subprocess
import sys
import unittest

CLI = sys.argv[1]
REGRESSIONS = sys.argv[2]

# The command that reads each harness's inputs, as a user would run it.
COMMANDS = {
    "npy": ["inspect"], "npz": ["inspect"], "safetensors": ["inspect"], "tensor_file": ["inspect"],
    "pytorch": ["inspect"], "pickle": ["inspect"], "shard_index": ["inspect"],
    "hdf5": ["inspect"],
    "session": ["report"], "recording": ["report"], "workload": ["run"],
}


class CrashFilesAreRefused(unittest.TestCase):
    def test_each_regression_file_exits_3_with_a_reason(self):
        ran = 0
        for harness, command in COMMANDS.items():
            folder = os.path.join(REGRESSIONS, harness)
            if not os.path.isdir(folder):
                continue
            for name in sorted(os.listdir(folder)):
                path = os.path.join(folder, name)
                with self.subTest(file=f"{harness}/{name}"):
                    r = subprocess.run([CLI, command[0], path, *command[1:]], capture_output=True, timeout=120)
                    err = r.stderr.decode("utf-8", "replace")
                    if name.startswith("degraded-"):
                        self.assertEqual(r.returncode, 0, f"{harness}/{name}: exit {r.returncode}\n{err[-2000:]}")
                        self.assertIn("not read", r.stdout.decode("utf-8", "replace"))
                        ran += 1
                        continue
                    self.assertEqual(r.returncode, 3, f"{harness}/{name}: exit {r.returncode}\n{err[-2000:]}")
                    self.assertIn("error:", err)
                    self.assertNotIn("please report", err, "refused only by the last-resort handler")
                    ran += 1
        self.assertGreater(ran, 0, "no regression files found")


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0]], verbosity=2)
