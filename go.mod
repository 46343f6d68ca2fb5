module github.com/vkstat/vkstat

go 1.24.0

require (
	github.com/sbinet/npyio v0.6.0
	github.com/urfave/cli/v2 v2.27.7
	github.com/vulkan-go/vulkan v0.0.0-20210402152248-956e3850d8f9
)

require (
	github.com/campoy/embedmd v1.0.0 // indirect
	github.com/cpuguy83/go-md2man/v2 v2.0.7 // indirect
	github.com/pmezard/go-difflib v1.0.0 // indirect
	github.com/russross/blackfriday/v2 v2.1.0 // indirect
	github.com/xrash/smetrics v0.0.0-20240521201337-686a1a2994c1 // indirect
	gonum.org/v1/gonum v0.17.0 // indirect
)
