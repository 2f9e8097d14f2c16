# found by ratesim verify (default flags, seed 1) before the known library existed, shrunk
ratesim run --trace experiments/verify/testdata/known/seed1-p50-any.csv --time-col arrival_s --sub-col sub_bucket --dispatch column --rate 125/3 --burst 2 --sub 100/3:1,25/3:1 --order lifo --seed 434714264
