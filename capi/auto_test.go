package capi

import (
	"strings"
	"testing"

	"github.com/vkstat/vkstat/device/tune"
	"github.com/vkstat/vkstat/engine"
)

// Issue 31 item 6: a session opened with "auto" says why it runs where it
// does (Session.device["reason"] in Python); one opened by name does not.
func TestAutoReason(t *testing.T) {
	t.Setenv("VKSTAT_VALIDATE", "")
	s, err := Open("auto", OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if !strings.HasPrefix(s.Device.Reason, "auto: ") && s.Note == "" {
		t.Errorf("auto: no reason and no note: %+v", s.Device)
	}
	c, err := Open("cpu", OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.Device.Reason != "" {
		t.Errorf("cpu: reason %q", c.Device.Reason)
	}
}

// Issue 39 item 4: a session on "auto" (Python's default) on a machine
// whose census lists no GPU runs on the CPU path without loading Vulkan: a
// loader that cannot load goes unnoticed. Without a census it is asked for.
func TestAutoCensusNoLoader(t *testing.T) {
	t.Setenv("VKSTAT_VALIDATE", "")
	t.Setenv("VKSTAT_TUNE_DIR", t.TempDir())
	t.Setenv("VKSTAT_VULKAN_LIB", "/nonexistent/libvulkan.so.1") // part of the census's fingerprint: set first
	s, err := Open("auto", OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if !strings.Contains(s.Note, "no Vulkan loader") {
		t.Fatalf("auto without a census: note %q, reason %q; want the loader tried", s.Note, s.Device.Reason)
	}
	tune.WriteCensus([]engine.DeviceInfo{{Index: 0, Name: "llvmpipe (a test's)", Type: "cpu"}})
	s, err = Open("auto", OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Note != "" || s.OnDevice() || !strings.Contains(s.Device.Reason, "Vulkan not loaded") {
		t.Errorf("auto with a census of no GPU: note %q, reason %q; want the CPU path, Vulkan not loaded", s.Note, s.Device.Reason)
	}
}
