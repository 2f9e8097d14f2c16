# found by ratesim verify (default flags, seed 1) before the known library existed, shrunk
ratesim run --trace experiments/verify/testdata/known/seed1-delayed-any.csv --time-col arrival_s --sub-col sub_bucket --dispatch column --rate 125/3 --burst 2 --sub 125/9:1,250/9:1 --order lifo --seed 191047411
