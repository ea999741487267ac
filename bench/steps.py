# SPDX-License-Identifier: GPL-2.0
# gdb script for bench/steps: attach to QEMU's gdb stub, stop at the page
# fault entry, and single-step each fault until it returns to user space,
# counting the instructions of the whole fault and of the dirtied handler.
# Environment: MD_PORT, MD_FAULT and MD_HANDLER (hex, 0 for none), MD_FAULTS.
# Prints "STEPS N TOTAL HANDLER" per fault.  Stepping masks interrupts, so a
# fault that sleeps (waiting for I/O or a lock) would idle for ever: after
# MD_MAX_STEPS it is let go, reported as "SLEPT", and another one is taken.
import os

import gdb

USER_TOP = 0x800000000000
MASK = (1 << 64) - 1
fault = int(os.environ["MD_FAULT"], 16)
handler = int(os.environ["MD_HANDLER"], 16)
faults = int(os.environ["MD_FAULTS"])
max_steps = int(os.environ.get("MD_MAX_STEPS", "200000"))

gdb.execute("set pagination off")
gdb.execute("set confirm off")
gdb.execute("set suppress-cli-notifications on")	# no frame line per step
gdb.execute("set architecture i386:x86-64", to_string=True)
gdb.execute("target remote 127.0.0.1:" + os.environ["MD_PORT"], to_string=True)
gdb.execute("break *%#x" % fault, to_string=True)
inferior = gdb.selected_inferior()


def reg(name):
    return int(gdb.parse_and_eval("$" + name)) & MASK


done = tries = 0
while done < faults and tries < 3 * faults:
    tries += 1
    gdb.execute("continue", to_string=True)
    if reg("pc") != fault:
        raise gdb.GdbError("stopped at %#x, not at the fault entry" % reg("pc"))
    steps = in_handler = 0
    ret = start = None
    while steps < max_steps:
        gdb.execute("stepi", to_string=True)
        steps += 1
        pc = reg("pc")
        if handler and ret is None and pc == handler:
            ret = int.from_bytes(inferior.read_memory(reg("sp"), 8).tobytes(), "little")
            start = steps
        elif ret is not None and not in_handler and pc == ret:
            in_handler = steps - start
        if pc < USER_TOP:
            break
    if steps == max_steps:
        print("SLEPT %d" % tries, flush=True)
        continue
    done += 1
    print("STEPS %d %d %d" % (done, steps, in_handler), flush=True)
gdb.execute("delete")
gdb.execute("detach", to_string=True)
