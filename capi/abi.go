package capi

import (
	"encoding/json"
	"fmt"
	"unsafe"
)

// The process's sessions, results and tokens, named by the integers the C
// side holds.
var (
	sessions Handles
	results  Handles
	tokens   Tokens
)

// decodeOptions reads OpenOptions from JSON ("" or null: the defaults).
func decodeOptions(js string) (OpenOptions, error) {
	var o OpenOptions
	if js == "" || js == "null" {
		return o, nil
	}
	if err := json.Unmarshal([]byte(js), &o); err != nil {
		return o, inputf("options: %v", err)
	}
	return o, nil
}

// DevicesJSON is Devices as JSON.
func DevicesJSON(optsJSON string) ([]byte, int, error) {
	o, err := decodeOptions(optsJSON)
	if err != nil {
		return nil, StatusValue, err
	}
	rep, err := Devices(o)
	if err != nil {
		return nil, Status(err, true), err
	}
	b, err := json.Marshal(rep)
	if err != nil {
		return nil, StatusError, err
	}
	return b, StatusOK, nil
}

// OpenHandle opens a session and returns its handle and, as JSON, its
// device record and note.
func OpenHandle(spec, optsJSON string) (int64, []byte, int, error) {
	o, err := decodeOptions(optsJSON)
	if err != nil {
		return 0, nil, StatusValue, err
	}
	s, err := Open(spec, o)
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
// caller's array pointers, under token's context. It returns the result's
// handle (0 when there is no output to copy) and its description as JSON.
func CallHandle(h, token int64, op string, reqJSON []byte, ptrs []unsafe.Pointer) (int64, []byte, int, error) {
	s, ok := sessions.Get(h).(*Session)
	if !ok {
		return 0, nil, StatusValue, fmt.Errorf("the session is closed")
	}
	var req Request
	if err := json.Unmarshal(reqJSON, &req); err != nil {
		return 0, nil, StatusValue, inputf("request: %v", err)
	}
	c, err := NewCall(req, ptrs)
	if err != nil {
		return 0, nil, StatusValue, err
	}
	r, err := s.Run(tokens.Context(token), op, c)
	if err != nil {
		return 0, nil, Status(err, s.OnDevice()), err
	}
	desc, err := json.Marshal(r)
	if err != nil {
		return 0, nil, StatusError, err
	}
	var id int64
	for _, o := range r.Outputs {
		if !o.Written {
			id = results.Put(r)
			break
		}
	}
	return id, desc, StatusOK, nil
}

// CopyResult copies output i of result res into dst.
func CopyResult(res int64, i int, dst []byte) error {
	r, ok := results.Get(res).(*Result)
	if !ok {
		return fmt.Errorf("no result %d", res)
	}
	return CopyOutput(r, i, dst)
}

// FreeResult forgets result res.
func FreeResult(res int64) { results.Take(res) }

// NewToken, CancelToken and EndToken manage the cancellable contexts of
// calls (Tokens).
func NewToken() int64 { return tokens.New() }

// CancelToken cancels token id.
func CancelToken(id int64) { tokens.Cancel(id) }

// EndToken ends token id.
func EndToken(id int64) { tokens.Done(id) }

// Live counts the sessions, results and tokens held (tests: nothing leaks).
func Live() (nSessions, nResults, nTokens int) {
	return sessions.Len(), results.Len(), tokens.Len()
}
