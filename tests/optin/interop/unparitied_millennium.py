"""A Millennium device that sends 7-bit characters without parity, as the DGT Centaur's
ChessLink emulation does, on a pseudo-terminal. Prints the slave's path, then one JSON line
per command it gets. Answers V, W, R, S, L, X; after the first S it reports e2-e4 as two
automatic status messages. The status goes h1 first, like real boards.
"""
import json
import os
import pty
import select
import signal
import sys
import tty

signal.alarm(18)  # fail (with output) before the suite gives up on us
master, slave = pty.openpty()
tty.setraw(slave)
print(os.ttyname(slave), flush=True)


def frame(body):
    check = 0
    for c in body:
        check ^= ord(c)
    return (body + "%02X" % check).encode("ascii")  # bit 7 always clear: no parity


def status(squares):
    return frame("s" + "".join(squares))


# h1 first: h1, g1 ... a1, h2 ... a8.
start = list("RNBKQBNR" + "P" * 8 + "." * 32 + "p" * 8 + "rnbkqbnr")
e2, e4 = 8 + 3, 24 + 3
lifted = list(start)
lifted[e2] = "."
moved = list(lifted)
moved[e4] = "P"

LENGTHS = {"V": 3, "S": 3, "X": 3, "T": 3, "W": 7, "R": 5, "L": 167}
buf = b""
reported = False
while True:
    ready, _, _ = select.select([master], [], [], 30)
    if not ready:
        sys.exit(4)
    data = os.read(master, 1024)
    if not data:
        sys.exit(0)
    buf += data
    while buf:
        letter = chr(buf[0] & 0x7F)
        n = LENGTHS.get(letter)
        if n is None:
            buf = buf[1:]
            continue
        if len(buf) < n:
            break
        raw, buf = buf[:n], buf[n:]
        text = "".join(chr(b & 0x7F) for b in raw)
        print(json.dumps({"cmd": text[:-2], "parity_bit_seen": any(b & 0x80 for b in raw)}),
              flush=True)
        if letter == "V":
            os.write(master, frame("v0110"))
        elif letter == "W":
            os.write(master, frame("w" + text[1:5]))
        elif letter == "R":
            os.write(master, frame("r" + text[1:3] + "00"))
        elif letter == "L":
            os.write(master, frame("l"))
        elif letter == "X":
            os.write(master, frame("x"))
        elif letter == "S":
            os.write(master, status(start))
            if not reported:
                reported = True
                os.write(master, status(lifted) + status(moved))
