# found by ratesim verify --known none (seed 1) once the burst-and-sparse-tail family was added, shrunk
ratesim run --trace experiments/verify/testdata/known/seed1-family-p99-fcfs.csv --time-col arrival_s --sub-col sub_bucket --dispatch column --rate 250 --burst 4.5 --sub 500/3:2.5,250/3:2 --order fcfs --seed 687013690
