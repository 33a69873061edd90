#!/bin/bash
#SBATCH --job-name=ior-small-seg
#SBATCH -N 4
#SBATCH --ntasks-per-node 2
#SBATCH --time=2:00
# Small segmented I/O, one file per process: 16 segments of 128 KiB per task in 4 KiB
# transfers, written, fsynced, then read back and checked by the same task. The IOR input is
# written next to the job's output, as the group's run scripts do.
set -e

IOR_INPUT=$SLURM_SUBMIT_DIR/ior_small.$SLURM_JOB_ID.in
trap 'rm -f "$IOR_INPUT"' EXIT
cat > "$IOR_INPUT" <<EOF_IOR
IOR START
    api=POSIX
    testFile=$BB_MOUNT/small_seg
    filePerProc=1
    transferSize=4k
    blockSize=128k
    segmentCount=16
    writeFile=1
    readFile=1
    fsync=1
    checkRead=1
    setTimeStampSignature=1618
    intraTestBarriers=1
RUN
IOR STOP
EOF_IOR

mpiexec -n $SLURM_NTASKS ior -f "$IOR_INPUT"
