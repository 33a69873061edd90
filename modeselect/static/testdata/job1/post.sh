#!/bin/bash
# Run by job.sh after the solver: a serial summary of the checkpoints.
python3 src/summary.py "$1/ckpt"
