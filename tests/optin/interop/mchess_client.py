"""Drives python-mchess's ChessLink (a third-party Millennium client, run from
../shared/interop) against an emulated Millennium board on a pseudo-terminal and prints
what it saw as JSON lines on stdout.

Usage (in a scratch directory: ChessLink keeps chess_link_config.json in the working
directory): mchess_client.py PORT FINAL_FEN

PYTHONPATH must hold ../shared/interop/shims and ../shared/interop/python-mchess/mchess.
Exits non-zero on a timeout.
"""
import json
import queue
import signal
import sys
import time

import pty_dtr_shim  # noqa: F401  (pyserial ignores ENOTTY for DTR on a pty; must come first)
import chess_link

signal.alarm(18)  # fail (with output) before the suite gives up on us
PORT, FINAL_FEN = sys.argv[1], sys.argv[2]


def say(**kv):
    print(json.dumps(kv), flush=True)


with open("chess_link_config.json", "w") as f:
    json.dump({"transport": "chess_link_usb", "address": PORT, "autodetect": False,
               "orientation": True, "protocol_debug": False, "btle_iface": 0}, f)

appque = queue.Queue()
cl = chess_link.ChessLink(appque, "interop")
if not cl.connected:
    say(error="not connected")
    sys.exit(2)
cl.get_version()
cl.get_position()
deadline = time.time() + 15
seen_final = False
while not seen_final or cl.board_version == "---":
    if time.time() > deadline:
        say(error="timeout", version=cl.board_version)
        sys.exit(3)
    try:
        msg = appque.get(timeout=0.5)
    except queue.Empty:
        continue
    if msg.get("cmd") == "raw_board_position":
        fen = msg["fen"].split()[0]
        say(board=fen)
        seen_final = seen_final or fen == FINAL_FEN
say(version=cl.board_version, orientation=cl.get_orientation())

# Light g1 and f3 (python-mchess's position array: [rank][file], rank 0 = rank 1).
pos = [[0] * 8 for _ in range(8)]
pos[0][6] = 1
pos[2][5] = 1
cl.set_led(pos, 0x20, 0x0F, 0xF0)
say(leds_sent=True)
