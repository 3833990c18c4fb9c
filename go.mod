module github.com/twinframe/twinframe

go 1.26

require github.com/go-gl/mathgl v1.2.0

require google.golang.org/protobuf v1.36.12 // indirect

tool google.golang.org/protobuf/cmd/protoc-gen-go
