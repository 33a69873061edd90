import os
import sys
import numpy as np

rank = int(os.environ.get("OMPI_COMM_WORLD_RANK", "0"))
ckpt = sys.argv[1]
files = sorted(os.listdir(ckpt))
np.random.shuffle(files)
# np.load("a_comment.npy")
summary = np.load(os.path.join(ckpt, f"summary_{rank}.npy"))
print("open('not/a/file', 'w')")
