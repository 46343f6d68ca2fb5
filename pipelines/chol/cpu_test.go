package chol

import "testing"

func TestCPU(t *testing.T) { runCholSuite(t, CPU) }
