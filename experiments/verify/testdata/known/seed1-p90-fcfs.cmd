# found by ratesim verify (default flags, seed 1) before the known library existed, shrunk
ratesim run --trace experiments/verify/testdata/known/seed1-p90-fcfs.csv --time-col arrival_s --sub-col sub_bucket --dispatch column --rate 250/3 --burst 5.5 --sub 125/3:3,125/3:2.5 --order fcfs --seed 397281463
