"""Runs blasscope-cli the way the end-to-end tests on hostile files need it run.

A hostile file may claim absurd sizes, and reading it must not allocate them: the CLI runs
under a 1 GiB address-space limit. In the sanitizer build (BLASSCOPE_SANITIZED=1) ASan needs
terabytes of address space for its shadow memory, so its own cap stands in for the limit:
any single allocation over 1 GiB is reported as an error.
"""
import os
import resource
import subprocess


def run_capped(cli, args, timeout=120, cwd=None):
    def cap_address_space():
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))

    env, limit = None, cap_address_space
    if os.environ.get("BLASSCOPE_SANITIZED") == "1":
        env = dict(os.environ)
        env["ASAN_OPTIONS"] = ":".join(filter(None, [env.get("ASAN_OPTIONS"), "max_allocation_size_mb=1024"]))
        limit = None
    proc = subprocess.run([cli, *args], capture_output=True, timeout=timeout, env=env, preexec_fn=limit, cwd=cwd)
    proc.out = proc.stdout.decode("utf-8")
    proc.err = proc.stderr.decode("utf-8")
    return proc
