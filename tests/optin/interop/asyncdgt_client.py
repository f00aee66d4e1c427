"""Drives python-asyncdgt (a third-party DGT client, run from ../shared/interop) against an
emulated DGT board on a pseudo-terminal and prints what it saw as JSON lines on stdout.

Usage: asyncdgt_client.py PORT FINAL_FEN FINAL_LEFT FINAL_RIGHT

PYTHONPATH must hold ../shared/interop/shims and ../shared/interop/python-asyncdgt. Every
observation is printed; the Rust test decides what is right. Exits non-zero on a timeout.
"""
import asyncio
import json
import signal
import sys

import compat311  # noqa: F401  (asyncio shims for 2015-era code; must come first)
import asyncdgt

signal.alarm(18)  # fail (with output) before the suite gives up on us
PORT, FINAL_FEN = sys.argv[1], sys.argv[2]
FINAL_LEFT, FINAL_RIGHT = int(sys.argv[3]), int(sys.argv[4])
TIMEOUT = 15


def say(**kv):
    print(json.dumps(kv), flush=True)


def main():
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    dgt = asyncdgt.Connection(loop, [PORT])
    final_board = asyncio.Event()
    final_clock = asyncio.Event()
    set_clock = asyncio.Event()

    @dgt.on("board")
    def on_board(board):
        fen = board.board_fen()
        say(board=fen)
        if fen == FINAL_FEN:
            final_board.set()

    @dgt.on("clock")
    def on_clock(clock):
        say(clock=[clock.left_time, clock.right_time, clock.left_up])
        if (clock.left_time, clock.right_time) == (FINAL_LEFT, FINAL_RIGHT):
            final_clock.set()
        if (clock.left_time, clock.right_time, clock.left_up) == (65, 125, True):
            set_clock.set()

    def run(coro):
        return loop.run_until_complete(asyncio.wait_for(coro, TIMEOUT))

    if not dgt.connect():
        say(error="cannot connect")
        sys.exit(2)
    say(version=run(dgt.get_version()))
    say(serial=run(dgt.get_serialnr()))
    say(long_serial=run(dgt.get_long_serialnr()))
    run(final_board.wait())
    run(final_clock.wait())
    say(played=True)
    say(clock_version=run(dgt.get_clock_version()))

    run(dgt.clock_beep(0.128))  # waits for the clock's ack itself
    say(beep_acked=True)

    dgt.clock_ack_received.clear()
    run(dgt.clock_set(65, 125, left_running=True))
    run(dgt.clock_ack_received.wait())
    say(set_acked=True)
    run(set_clock.wait())
    say(set_shown=True)

    dgt.clock_ack_received.clear()
    run(dgt.clock_text("e4", "bugbrdg"))
    run(dgt.clock_ack_received.wait())
    say(text_acked=True)
    dgt.close()


main()
