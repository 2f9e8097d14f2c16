# found by ratesim verify --known none (seed 1) once the burst-and-sparse-tail family was added, shrunk
ratesim run --trace experiments/verify/testdata/known/seed1-family-job-fcfs.csv --time-col arrival_s --sub-col sub_bucket --dispatch column --rate 62.5 --burst 2 --sub 12.5:1,50:1 --order fcfs --seed 197276727
