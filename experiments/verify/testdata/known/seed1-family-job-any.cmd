# found by ratesim verify --known none (seed 1) once the burst-and-sparse-tail family was added, shrunk
ratesim run --trace experiments/verify/testdata/known/seed1-family-job-any.csv --time-col arrival_s --sub-col sub_bucket --dispatch column --rate 250 --burst 2 --sub 250/3:1,500/3:1 --order random --seed 559064456
