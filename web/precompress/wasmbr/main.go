// Command wasmbr writes FILE.br, the brotli copy of the wasm viewer that the page
// downloads (make wasm runs it on web/viewer.wasm):
//
//	go run ./web/precompress/wasmbr [-q quality] FILE
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/twinframe/twinframe/web/precompress"
)

func main() {
	q := flag.Int("q", precompress.Best, "brotli quality, 0-11")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: wasmbr [-q quality] FILE")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 || *q < 0 || *q > 11 {
		flag.Usage()
		os.Exit(2)
	}
	start := time.Now()
	n, err := precompress.Brotli(flag.Arg(0), *q)
	if err != nil {
		fmt.Fprintln(os.Stderr, "wasmbr:", err)
		os.Exit(1)
	}
	fmt.Printf("wasmbr: %s.br %d bytes (%v)\n", flag.Arg(0), n, time.Since(start).Round(time.Second))
}
