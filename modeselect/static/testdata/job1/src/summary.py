import glob
import sys

for path in glob.glob(sys.argv[1] + "/rank_*.dat"):
    with open(path) as f:
        f.read()
