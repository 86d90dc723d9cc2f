module github.com/etalake/etalake

go 1.25.0

require github.com/sourcegraph/conc v0.3.0 // indirect
