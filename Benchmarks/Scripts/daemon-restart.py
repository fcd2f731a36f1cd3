#!/usr/bin/env python3
"""A daemon's restart on a store it already holds: starts `fenced serve --data STORE` (no
--zones), times until /healthz answers, stops it with SIGTERM (no command ran, so no snapshot
is written and the store stays as it was), and repeats, alternating the builds given. Prints
one line per start: the build's file name and its seconds.

usage: daemon-restart.py STORE ROUNDS SCRATCH FENCED [FENCED...]

A store of a million circles: the one `zone-churn-daemon.py` leaves in SCRATCH/fenced-churn-store.
"""
import os, signal, sys

from fenced_process import start_fenced

store, rounds, scratch = sys.argv[1], int(sys.argv[2]), sys.argv[3]
for _ in range(rounds):
    for fenced in sys.argv[4:]:
        process, _, seconds = start_fenced(fenced, store, [], scratch)
        process.send_signal(signal.SIGTERM)
        process.wait()
        print(os.path.basename(fenced), round(seconds, 3), flush=True)
