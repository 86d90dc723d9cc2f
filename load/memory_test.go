package load

import "testing"

// TestMemoryBytesReadsDuckDBSizes: the sizes a memory limit is given in.
func TestMemoryBytesReadsDuckDBSizes(t *testing.T) {
	for in, want := range map[string]int64{
		"128MB": 128e6, "1GiB": 1 << 30, "512 KB": 512e3, "1.5GB": 1.5e9, "100b": 100, " 64MiB ": 64 << 20,
	} {
		if got, ok := memoryBytes(in); !ok || got != want {
			t.Errorf("memoryBytes(%q) = %d, %v; want %d", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "80%", "MB", "12 parsecs", "-1MB", "0GB", "0"} {
		if got, ok := memoryBytes(in); ok {
			t.Errorf("memoryBytes(%q) = %d, want refused", in, got)
		}
	}
}
