package cli

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// A variable nothing reads changes nothing, so it is said at start, on
// stderr through the command's logger: its name and the nearest known
// one, and for a flag that has no variable on purpose (--dry-run), that
// it must be given on the command line. Its value is never said (it
// could be a key); a known variable, the key's or a test tier's, is not
// warned of.
func TestUnknownVariablesAreSaidNeverTheirValues(t *testing.T) {
	const secret = "sk-live-5e3c0d"
	// The two unknown names are spelt in two parts, so that the test
	// below, which reads every name the code spells, does not take them
	// for names something reads.
	env := map[string]string{"ETALAKE_" + "WAREHOUSX": secret, "ETALAKE_" + "DRY_RUN": "1", "ETALAKE_SLOW_TESTS": "1", envAPIKey: secret,
		"ETALAKE_WAREHOUSE": filepath.Join(t.TempDir(), "wh")}
	_, out, stderr := run(t, env, "track", "list")
	for _, want := range []string{
		"variable=ETALAKE_WAREHOUSX did_you_mean=ETALAKE_WAREHOUSE",
		"variable=ETALAKE_DRY_RUN",
		"--dry-run reads no variable on purpose: give it on the command line",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if strings.Contains(out+stderr, secret) {
		t.Errorf("a value was said:\n%s%s", out, stderr)
	}
	for _, quiet := range []string{"ETALAKE_SLOW_TESTS", envAPIKey, "variable=ETALAKE_WAREHOUSE "} {
		if strings.Contains(stderr, quiet) {
			t.Errorf("warned of %s, a known variable:\n%s", quiet, stderr)
		}
	}
	if n := strings.Count(stderr, "variable=ETALAKE_WAREHOUSX"); n != 1 {
		t.Errorf("warned %d times, want once:\n%s", n, stderr)
	}
}

// Every ETALAKE_* name the code spells — the command line's, the tests'
// and benchmarks' and the child processes they start — is known, so that
// none is warned of as read by nothing while something reads it.
func TestEveryVariableTheCodeSpellsIsKnown(t *testing.T) {
	known := knownVariables(newApp())
	name := regexp.MustCompile(`"(ETALAKE_[A-Z0-9_]*[A-Z0-9])"`)
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), ".") && path != "." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range name.FindAllStringSubmatch(string(b), -1) {
			if !slices.Contains(known, m[1]) && !strings.HasPrefix(m[1], testVariablePrefix) {
				t.Errorf("%s spells %s, which no flag reads and otherVariables does not list: it would be warned of as read by nothing", path, m[1])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
