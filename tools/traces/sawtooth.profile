# Ramps up and drops, three times (seconds, target ops/s).
0 500
2 1500
4 2500
6 3500
8 500
10 1500
12 2500
14 3500
16 500
18 1500
20 2500
22 3500
24 500
