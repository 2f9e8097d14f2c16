# found by ratesim verify (default flags, seed 1) before the known library existed, shrunk
ratesim run --trace experiments/verify/testdata/known/seed1-job-any.csv --time-col arrival_s --sub-col sub_bucket --dispatch column --rate 125/9 --burst 3 --sub 125/21:1,500/63:2 --order lifo --seed 422400285
