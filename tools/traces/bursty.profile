# A volatile metadata load: bursts over a low base (seconds, target ops/s).
0 500
5 4000
8 800
12 6000
14 300
20 3000
26 200
30 200
