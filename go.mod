module github.com/ptfsh/ptfsh

go 1.26.0

require (
	github.com/alecthomas/participle/v2 v2.1.4
	github.com/brianvoe/gofakeit/v7 v7.18.9
	github.com/chzyer/readline v1.5.1
	github.com/dlclark/regexp2/v2 v2.5.2
	github.com/dop251/goja v0.0.0-20260917113740-793a2a65c13b
	github.com/evanw/esbuild v0.28.2
	github.com/google/go-cmp v0.7.0
	github.com/parquet-go/parquet-go v0.32.0
	github.com/twmb/avro v1.9.1
	github.com/twmb/franz-go v1.22.3
	github.com/twmb/franz-go/pkg/kadm v1.20.0
	github.com/twmb/franz-go/pkg/kfake v0.0.0-20260918054303-01f206a7e32c
	github.com/twmb/franz-go/pkg/sr v1.8.0
	go.etcd.io/bbolt v1.5.0
	golang.org/x/tools v0.52.0
)

require (
	github.com/andybalholm/brotli v1.1.1 // indirect
	github.com/aymanbagabas/go-udiff v0.4.2 // indirect
	github.com/go-sourcemap/sourcemap v2.1.3+incompatible // indirect
	github.com/google/pprof v0.0.0-20230207041349-798e818bf904 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/klauspost/compress v1.20.3 // indirect
	github.com/parquet-go/bitpack v1.0.0 // indirect
	github.com/parquet-go/jsonlite v1.0.0 // indirect
	github.com/pierrec/lz4/v4 v4.1.33 // indirect
	github.com/twmb/franz-go/pkg/kmsg v1.15.1 // indirect
	github.com/twpayne/go-geom v1.6.1 // indirect
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/text v0.3.8 // indirect
	google.golang.org/protobuf v1.34.2 // indirect
)
