package smallfile

// The caches' files (the pipeline cache, VkFFT's plans, the tune cache):
// where they live, how one is written so that a reader never sees part of
// it, and a checksummed frame for what a driver or VkFFT would take
// unchecked.

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// CacheDir is the folder of one of vkstat's caches: $env when it names a
// folder, else vkstat/sub under the user cache directory
// (~/.cache/vkstat/sub on Linux); "" (no cache) when $env is "off" or
// there is no user cache directory.
func CacheDir(env, sub string) string {
	switch d := os.Getenv(env); d {
	case "off":
		return ""
	case "":
	default:
		return d
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(base, "vkstat", sub)
}

// Write stores data at path, its folder made when missing, through a
// temporary file of its own renamed over path: a reader, in this process
// or another, sees the old file or the new one whole, never a part, and
// writers racing leave one of theirs. What fails is an error naming path,
// and leaves no temporary file behind.
func Write(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+"-*.tmp")
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// Seal frames data for a cache file: magic (8 bytes), format version,
// the lengths of key and data, the SHA-256 of key and data, key, data.
// key names everything data depends on (the device, the driver, the
// plan), so that Unseal hands data only to what made it.
func Seal(magic string, version uint32, key string, data []byte) []byte {
	out := make([]byte, 0, sealHdr+len(key)+len(data))
	out = append(out, magic...)
	out = binary.LittleEndian.AppendUint32(out, version)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(key)))
	out = binary.LittleEndian.AppendUint64(out, uint64(len(data)))
	sum := sealSum(key, data)
	out = append(out, sum[:]...)
	out = append(out, key...)
	return append(out, data...)
}

// sealHdr is the size of Seal's header, before the key.
const sealHdr = 8 + 4 + 4 + 8 + sha256.Size

func sealSum(key string, data []byte) [sha256.Size]byte {
	h := sha256.New()
	h.Write([]byte(key))
	h.Write(data)
	var s [sha256.Size]byte
	copy(s[:], h.Sum(nil))
	return s
}

// Unseal returns the data of a file Seal made with magic, version and
// key, or why it must not be used: not such a file, another format
// version, torn, corrupt, or sealed for another key.
func Unseal(file []byte, magic string, version uint32, key string) ([]byte, error) {
	le := binary.LittleEndian
	if len(file) < sealHdr || string(file[:8]) != magic {
		return nil, fmt.Errorf("not a %s file", magic)
	}
	if v := le.Uint32(file[8:]); v != version {
		return nil, fmt.Errorf("format %d, want %d", v, version)
	}
	kl, dl := uint64(le.Uint32(file[12:])), le.Uint64(file[16:])
	if uint64(len(file)-sealHdr) != kl+dl {
		return nil, fmt.Errorf("torn file: %d bytes after the header, it says %d", len(file)-sealHdr, kl+dl)
	}
	k, data := string(file[sealHdr:sealHdr+int(kl)]), file[sealHdr+int(kl):]
	if sum := sealSum(k, data); !bytes.Equal(sum[:], file[24:sealHdr]) {
		return nil, errors.New("checksum mismatch")
	}
	if k != key {
		return nil, fmt.Errorf("saved for another key:\n%s", k)
	}
	return data, nil
}
