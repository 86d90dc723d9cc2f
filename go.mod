module github.com/etalake/etalake

go 1.25.0
