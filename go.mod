module github.com/ptfsh/ptfsh

go 1.26
