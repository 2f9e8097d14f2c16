# p99 under FCFS: the exact-ties issue's counterexample (experiments/verify
# TestP99Counterexample, worked by hand there). r = 1, b = 2 split into
# (0.5, 1) twice; 5 jobs at 0, 0, 0.5, 0.5, 2.5 s to sub-buckets 0, 1, 0, 0, 1,
# then 196 jobs 10 s apart alternating. 201 jobs: the nearest-rank p99 (the
# 199th smallest) is 0.5 s in the one bucket and 0 split.
ratesim run --trace experiments/verify/testdata/known/p99-fcfs.csv --time-col arrival_s --sub-col sub_bucket --dispatch column --rate 1 --burst 2 --sub 0.5:1,0.5:1 --order fcfs --seed 0
