# found by ratesim verify (default flags, seed 1) before the known library existed, shrunk
ratesim run --trace experiments/verify/testdata/known/seed1-job-fcfs.csv --time-col arrival_s --sub-col sub_bucket --dispatch column --rate 250 --burst 3 --sub 200:2,50:1 --order fcfs --seed 271373059
