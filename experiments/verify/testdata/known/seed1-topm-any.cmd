# found by ratesim verify (default flags, seed 1) before the known library existed, shrunk
ratesim run --trace experiments/verify/testdata/known/seed1-topm-any.csv --time-col arrival_s --sub-col sub_bucket --dispatch column --rate 125/3 --burst 2 --sub 25:1,50/3:1 --order random --seed 278980333
