# found by ratesim verify --known none (seed 1) once the burst-and-sparse-tail family was added, shrunk
ratesim run --trace experiments/verify/testdata/known/seed1-family-p90-fcfs.csv --time-col arrival_s --sub-col sub_bucket --dispatch column --rate 125/6 --burst 2.75 --sub 125/12:1.75,125/12:1 --order fcfs --seed 256338003
