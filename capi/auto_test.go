package capi

import (
	"strings"
	"testing"
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
