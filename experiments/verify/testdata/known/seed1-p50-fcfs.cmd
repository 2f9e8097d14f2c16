# found by ratesim verify (default flags, seed 1) before the known library existed, shrunk
ratesim run --trace experiments/verify/testdata/known/seed1-p50-fcfs.csv --time-col arrival_s --sub-col sub_bucket --dispatch column --rate 62.5 --burst 2.5 --sub 31.25:1,31.25:1.5 --order fcfs --seed 772031784
