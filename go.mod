module github.com/ratesim/ratesim

go 1.26.8

require (
	github.com/DataDog/sketches-go v1.4.8
	github.com/google/go-cmp v0.7.0
	github.com/spf13/cobra v1.10.2
	gonum.org/v1/gonum v0.17.0
)

require (
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/spf13/pflag v1.0.9 // indirect
	google.golang.org/protobuf v1.36.11 // indirect
	pgregory.net/rapid v1.3.0 // indirect
)
