# found by ratesim verify (default flags, seed 1) before the known library existed, shrunk
ratesim run --trace experiments/verify/testdata/known/seed1-delayed-fcfs.csv --time-col arrival_s --sub-col sub_bucket --dispatch column --rate 250/3 --burst 2.5 --sub 250/9:1.5,500/9:1 --order fcfs --seed 88592870
