package capi

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unsafe"

	"github.com/vkstat/vkstat/engine"
)

// The process's sessions and tokens, named by the integers the C side
// holds.
var (
	sessions Handles
	tokens   Tokens
)

// openRequest is what the caller sends to open a session: the device, as
// the command line's --device names it or as an index (a JSON number, -1
// for the CPU path, as devices lists it), and the options.
type openRequest struct {
	Device any `json:"device"`
	OpenOptions
}

// decodeOptions reads an openRequest from JSON ("" or null: the defaults).
func decodeOptions(js string) (openRequest, error) {
	var o openRequest
	if js == "" || js == "null" {
		return o, nil
	}
	return o, decodeStrict([]byte(js), &o, "options")
}

// spec is the device the request names, as engine.Open reads it: a name
// (not empty), or an index, -1 being the CPU path.
func (o openRequest) spec() (string, error) {
	d, ok := o.Device.(string)
	if n, isNum := o.Device.(json.Number); isNum {
		_, err := strconv.Atoi(string(n))
		d, ok = string(n), err == nil
	}
	switch {
	case !ok:
		return "", inputf("device: want a name or an index from vkstat.devices(), got %s", jsonWords(o.Device))
	case strings.TrimSpace(d) == "":
		return "", inputf("device: an empty name; want auto, cpu, gpu, lavapipe, an index from vkstat.devices() or part of a device's name")
	}
	if i, err := strconv.Atoi(strings.TrimSpace(d)); err == nil && i == engine.CPUPath {
		return "cpu", nil
	}
	return d, nil
}

// DevicesJSON is Devices as JSON.
func DevicesJSON(optsJSON string) ([]byte, int, error) {
	o, err := decodeOptions(optsJSON)
	if err != nil {
		return nil, StatusValue, err
	}
	rep, err := Devices(o.OpenOptions)
	if err != nil {
		return nil, Status(err, true), err
	}
	b, err := json.Marshal(rep)
	if err != nil {
		return nil, StatusError, err
	}
	return b, StatusOK, nil
}

// OpenHandle opens the session reqJSON asks for (an openRequest) and
// returns its handle and, as JSON, its device record and note.
func OpenHandle(reqJSON string) (int64, []byte, int, error) {
	o, err := decodeOptions(reqJSON)
	if err != nil {
		return 0, nil, StatusValue, err
	}
	spec, err := o.spec()
	if err != nil {
		return 0, nil, StatusValue, err
	}
	s, err := Open(spec, o.OpenOptions)
	if err != nil {
		return 0, nil, Status(err, true), err
	}
	b, err := json.Marshal(s)
	if err != nil {
		s.Close()
		return 0, nil, StatusError, err
	}
	return sessions.Put(s), b, StatusOK, nil
}

// CloseHandle closes session h and forgets it.
func CloseHandle(h int64) (int, error) {
	s, ok := sessions.Take(h).(*Session)
	if !ok {
		return StatusOK, nil // closed already
	}
	if err := s.Close(); err != nil {
		return StatusDevice, err
	}
	return StatusOK, nil
}

// CallHandle runs op on session h with the request in reqJSON and the
// caller's array pointers, under token's context; alloc gives the memory
// of the outputs. It returns the result's description as JSON.
func CallHandle(h, token int64, op string, reqJSON []byte, ptrs []unsafe.Pointer, alloc Alloc) ([]byte, int, error) {
	s, ok := sessions.Get(h).(*Session)
	if !ok {
		return nil, StatusValue, fmt.Errorf("the session is closed")
	}
	var req Request
	jsonCodings.Add(1)
	if err := json.Unmarshal(reqJSON, &req); err != nil {
		return nil, StatusValue, inputf("request: %v", err)
	}
	c, err := NewCall(req, ptrs, alloc)
	if err != nil {
		return nil, StatusValue, err
	}
	if req.Prepare && preparable[op] {
		c.prep = &prepared{op: op, params: req.Params, specs: req.Arrays, nptrs: len(ptrs)}
	}
	r, err := s.Run(tokens.Context(token), op, c)
	if err != nil {
		return nil, Status(err, s.OnDevice()), err
	}
	if c.prep != nil {
		r.Prepared = s.keep(c.prep, c, r)
	}
	r.report()
	jsonCodings.Add(1)
	desc, err := json.Marshal(r)
	if err != nil {
		return nil, StatusError, err
	}
	return desc, StatusOK, nil
}

// NewToken, CancelToken and EndToken manage the cancellable contexts of
// calls (Tokens).
func NewToken() int64 { return tokens.New() }

// CancelToken cancels token id.
func CancelToken(id int64) { tokens.Cancel(id) }

// EndToken ends token id.
func EndToken(id int64) { tokens.Done(id) }

// Live counts the sessions and tokens held (tests: nothing leaks).
func Live() (nSessions, nTokens int) {
	return sessions.Len(), tokens.Len()
}
