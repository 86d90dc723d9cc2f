// Command etalake turns a rate-limited, credit-metered shipping API into a
// warehouse of ETA history. See README.md, or run `etalake help`. The
// command line is package cli; this file only starts it.
package main

import (
	"os"

	"github.com/etalake/etalake/cli"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

func main() {
	os.Exit(cli.Main(version))
}
