module github.com/vkstat/vkstat

go 1.22

require (
	github.com/campoy/embedmd v1.0.0 // indirect
	github.com/pmezard/go-difflib v1.0.0 // indirect
	github.com/sbinet/npyio v0.6.0 // indirect
	github.com/vulkan-go/vulkan v0.0.0-20210402152248-956e3850d8f9 // indirect
	gonum.org/v1/gonum v0.9.3 // indirect
)
