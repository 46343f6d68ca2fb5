package capi

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"time"

	"github.com/vkstat/vkstat/device/tune"
	"github.com/vkstat/vkstat/engine"
)

// OpenOptions configure a session, over what the environment says
// (VKSTAT_VALIDATE and engine.DeviceOptionsFromEnv's variables).
type OpenOptions struct {
	// Validate turns the Vulkan validation layer on: any message it
	// reports fails the call.
	Validate bool `json:"validate"`
	// Memory caps the device memory vkstat allocates, e.g. "2GiB"
	// (engine.ParseSize); "" leaves the default.
	Memory string `json:"memory"`
	// Disable lists features to treat as absent: float64, float16,
	// subgroup.
	Disable string `json:"disable"`
}

// deviceOptions are the engine's options from the environment and o.
func (o OpenOptions) deviceOptions() (engine.DeviceOptions, error) {
	opt, err := engine.DeviceOptionsWith(o.Memory, o.Disable)
	if err != nil {
		return opt, inputError(err)
	}
	return opt, nil
}

// DeviceRecord describes where a session runs: the CPU path or a Vulkan
// device (with its full report).
type DeviceRecord struct {
	// Path is "cpu" or "vulkan".
	Path string `json:"path"`
	// Index is the Vulkan device's index, -1 for the CPU path.
	Index   int    `json:"index"`
	Name    string `json:"name"`
	Type    string `json:"type"`
	Threads int    `json:"threads,omitempty"`
	// Float64 says whether float64 runs there.
	Float64 bool               `json:"float64"`
	Vulkan  *engine.DeviceInfo `json:"vulkan,omitempty"`
	// Reason says why "auto" chose this path (engine.Session.Why).
	Reason string `json:"reason,omitempty"`
}

func cpuRecord() DeviceRecord {
	return DeviceRecord{Path: "cpu", Index: engine.CPUPath, Name: "CPU path (native Go)", Type: "cpu", Threads: runtime.GOMAXPROCS(0), Float64: true}
}

func vulkanRecord(in engine.DeviceInfo) DeviceRecord {
	return DeviceRecord{Path: "vulkan", Index: in.Index, Name: in.Name, Type: in.Type, Float64: in.Float64, Vulkan: &in}
}

// Session is a device kept open across calls, with its pipelines and
// caches, or the CPU path. Calls on one session run one at a time.
type Session struct {
	mu     sync.Mutex
	es     *engine.Session
	dev    *engine.Device // es.Device; nil: the CPU path
	closed bool
	// prep holds the calls kept for repeats (CallPrepared), by id.
	prep     map[int64]*prepared
	nextPrep int64
	// last is the last call's timing, whose report LastTimingJSON makes
	// when asked.
	last    engine.Timing
	hasLast bool
	// Device says where the session runs.
	Device DeviceRecord `json:"device"`
	// Note says why "auto" runs on the CPU path when Vulkan is unusable.
	Note string `json:"note,omitempty"`
}

// Open opens the device spec names: auto, cpu, gpu, lavapipe, an index or
// part of a name, as the command line's --device takes them (engine.Open).
// auto is the best GPU, else the CPU path, decided from the machine's
// census (tune.CensusFile) without loading Vulkan where it lists no GPU;
// it falls back to the CPU path, with a note, when Vulkan is unusable (no
// loader, no driver, no device); any explicit Vulkan choice that cannot
// be honoured is an error naming the cause.
func Open(spec string, o OpenOptions) (*Session, error) {
	opt, err := o.deviceOptions()
	if err != nil {
		return nil, err
	}
	// auto on a machine whose census lists no GPU is the CPU path without
	// the Vulkan loader: a Python user without a GPU never pays for it
	// after the first listing.
	es, err := engine.Open(spec, engine.OpenOptions{Validate: o.Validate || engine.ValidateFromEnv(), Device: opt, Census: tune.CensusFile{}})
	var oe *engine.OpenError
	if errors.As(err, &oe) {
		err = openError{oe}
		if oe.BadSpec() {
			err = InputError{err}
		}
		return nil, err
	}
	if err != nil {
		return nil, err
	}
	s := &Session{es: es, dev: es.Device, Device: cpuRecord(), Note: es.Fallback}
	if es.Device != nil {
		s.Device = vulkanRecord(es.Device.Info)
	}
	s.Device.Reason = es.Why
	return s, nil
}

// openError is an engine.OpenError worded for Python.
type openError struct{ *engine.OpenError }

func (e openError) Error() string { return e.Words("device", true, `device "cpu"`, "vkstat.devices()") }

// OnDevice reports whether the session runs on a Vulkan device.
func (s *Session) OnDevice() bool { return s.dev != nil }

// Close releases the device; validation messages raised while closing
// (leaks) are returned. Closing twice is a no-op.
func (s *Session) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	s.dev = nil
	s.prep = nil
	return s.es.Close()
}

// Run runs operation op with req on the session, one call at a time.
func (s *Session) Run(ctx context.Context, op string, c *Call) (*Result, error) {
	f, ok := ops[op]
	if !ok {
		return nil, inputf("unknown operation %q", op)
	}
	// Files are opened before the lock: a read that blocks for good (a
	// FIFO nobody writes) holds up its own call only, and the session
	// serves the next call once the caller gives up on this one (Ctrl-C).
	if inspect := inspects[op]; inspect != nil {
		if err := inspect(c); err != nil {
			return nil, err
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, inputf("the session is closed")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if c.given == nil { // an output the caller refuses stops the call
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		c.cancel = cancel
		defer cancel()
	}
	c.ctx = ctx
	r, err := f(ctx, s.dev, c)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.refused != nil {
		return nil, c.refused
	}
	if r != nil {
		s.last, s.hasLast = r.timing, r.hasTime
	}
	return r, err
}

// DevicesReport is what Devices returns: every Vulkan device and the CPU
// path, and why Vulkan is unusable when it is.
type DevicesReport struct {
	Devices     []DeviceRecord `json:"devices"`
	VulkanError string         `json:"vulkan_error,omitempty"`
}

// Devices lists the Vulkan devices the loader sees (with o's disabled
// features taken away) and the CPU path. A missing loader or driver is
// reported, not an error; any other Vulkan failure is.
func Devices(o OpenOptions) (*DevicesReport, error) {
	opt, err := o.deviceOptions()
	if err != nil {
		return nil, err
	}
	rep := &DevicesReport{}
	l, err := engine.List(o.Validate || engine.ValidateFromEnv(), opt.Disable)
	if err != nil {
		if !errors.Is(err, engine.ErrNoLoader) && !errors.Is(err, engine.ErrNoDriver) {
			return nil, err
		}
		rep.VulkanError = err.Error()
	}
	for _, in := range l.Devices {
		rep.Devices = append(rep.Devices, vulkanRecord(in))
	}
	rep.Devices = append(rep.Devices, cpuRecord())
	return rep, nil
}

// ---- handles and tokens ------------------------------------------------------

// Handles maps the integers the C side holds to Go values (sessions). 0 is
// never a handle.
type Handles struct {
	mu   sync.Mutex
	next int64
	m    map[int64]any
}

// Put stores v and returns its handle.
func (h *Handles) Put(v any) int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.m == nil {
		h.m = map[int64]any{}
	}
	h.next++
	h.m[h.next] = v
	return h.next
}

// Get returns the value of handle id, nil when there is none.
func (h *Handles) Get(id int64) any {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.m[id]
}

// Take removes handle id and returns its value.
func (h *Handles) Take(id int64) any {
	h.mu.Lock()
	defer h.mu.Unlock()
	v := h.m[id]
	delete(h.m, id)
	return v
}

// Len is the number of live handles (tests: nothing leaks).
func (h *Handles) Len() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.m)
}

// Tokens are cancellable contexts the caller names by number: it takes one
// (New) before a call, passes it to the call (Context) and may cancel it
// from another thread at any time (Cancel); the call ends it (Done).
type Tokens struct {
	mu   sync.Mutex
	next int64
	m    map[int64]tokenCtx
}

type tokenCtx struct {
	ctx    context.Context
	cancel context.CancelFunc
}

// New returns a fresh token.
func (t *Tokens) New() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.m == nil {
		t.m = map[int64]tokenCtx{}
	}
	t.next++
	ctx, cancel := context.WithCancel(context.Background())
	t.m[t.next] = tokenCtx{ctx, cancel}
	return t.next
}

// Context is token id's context; an unknown or ended token (0 included)
// gets a context that is never cancelled.
func (t *Tokens) Context(id int64) context.Context {
	t.mu.Lock()
	defer t.mu.Unlock()
	if c, ok := t.m[id]; ok {
		return c.ctx
	}
	return context.Background()
}

// Cancel cancels token id; the call using it stops at its next look at
// the context. The token stays until Done.
func (t *Tokens) Cancel(id int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if c, ok := t.m[id]; ok {
		c.cancel()
	}
}

// Done ends token id.
func (t *Tokens) Done(id int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if c, ok := t.m[id]; ok {
		c.cancel()
		delete(t.m, id)
	}
}

// Len is the number of live tokens.
func (t *Tokens) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.m)
}

// since is time.Since in seconds, for reports.
func since(t time.Time) float64 { return time.Since(t).Seconds() }
