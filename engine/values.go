package engine

// value is something a package keeps on a Device for the device's life
// (Device.Value): VkFFT's plans, say, whose pipelines and tables belong to
// the VkDevice and must go before it does.
type value struct {
	key     any
	v       any
	release func()
}

// Value returns what d keeps under key, made by mk the first time it is
// asked for (an error from mk is returned and nothing is kept). release,
// when mk returns one, runs when d closes, after the device is idle and
// before its Vulkan objects are destroyed, in the reverse order of making.
// Keys compare as map keys do; a package uses a key type of its own.
func (d *Device) Value(key any, mk func() (v any, release func(), err error)) (any, error) {
	d.vmu.Lock()
	defer d.vmu.Unlock()
	for _, e := range d.values {
		if e.key == key {
			return e.v, nil
		}
	}
	v, release, err := mk()
	if err != nil {
		return nil, err
	}
	d.values = append(d.values, value{key, v, release})
	return v, nil
}

// releaseValues runs the values' releases, newest first (Close).
func (d *Device) releaseValues() {
	d.vmu.Lock()
	vs := d.values
	d.values = nil
	d.vmu.Unlock()
	for i := len(vs) - 1; i >= 0; i-- {
		if vs[i].release != nil {
			vs[i].release()
		}
	}
}
