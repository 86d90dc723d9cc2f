package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/etalake/etalake/internal/slowtest"
)

// dockerfileRuntime is what the test reads of the Dockerfile's last stage.
type dockerfileRuntime struct {
	workdir    string
	entrypoint []string
	cmd        []string
	ownedCopy  string // the destination of a COPY --chown=65532:65532
}

func readDockerfileRuntime(t *testing.T) dockerfileRuntime {
	t.Helper()
	b, err := os.ReadFile("Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	stages := regexp.MustCompile(`(?m)^FROM\s`).Split(string(b), -1)
	var r dockerfileRuntime
	for _, l := range strings.Split(stages[len(stages)-1], "\n") {
		instr, arg, _ := strings.Cut(strings.TrimSpace(l), " ")
		arg = strings.TrimSpace(arg)
		switch instr {
		case "WORKDIR":
			r.workdir = arg
		case "ENTRYPOINT", "CMD":
			var words []string
			if err := json.Unmarshal([]byte(arg), &words); err != nil {
				t.Fatalf("Dockerfile: %s %s is not the exec form (a JSON array): the image has no shell", instr, arg)
			}
			if instr == "CMD" {
				r.cmd = words
			} else {
				r.entrypoint = words
			}
		case "COPY":
			f := strings.Fields(arg)
			if strings.Contains(arg, "--chown=65532:65532") && r.workdir == "" {
				r.ownedCopy = f[len(f)-1]
			}
		}
	}
	return r
}

// TestDockerfileWorkdirIsTheUsers: the image runs as uid 65532, and its
// working directory is one it owns — copied in with --chown=65532:65532
// before the WORKDIR line (Dockerfile reference: "If the WORKDIR doesn't
// exist, it will be created even if it's not used in any subsequent
// Dockerfile instruction", as root) — so that its default command, the
// demo, can write there.
func TestDockerfileWorkdirIsTheUsers(t *testing.T) {
	r := readDockerfileRuntime(t)
	if r.workdir == "" || r.workdir == "/" {
		t.Fatalf("the image's WORKDIR is %q: uid 65532 cannot write / (mkdir /etalake-demo: permission denied)", r.workdir)
	}
	if strings.TrimSuffix(r.ownedCopy, "/") != r.workdir {
		t.Errorf("the image's WORKDIR %s is not made by a COPY --chown=65532:65532 before it (the COPY makes %q): WORKDIR alone makes it root's", r.workdir, r.ownedCopy)
	}
	if len(r.entrypoint) != 1 || r.entrypoint[0] != "/usr/local/bin/etalake" || len(r.cmd) == 0 || r.cmd[0] != "demo" {
		t.Errorf("the image runs %q %q; want etalake, and the demo by default", r.entrypoint, r.cmd)
	}
}

// TestDockerImageDefaultCommandRuns runs the image's entrypoint with its
// default command as the image does, in a directory like its WORKDIR (its
// user's, empty): the demo exits 0 and writes its warehouse and page
// there. No Docker engine here or in CI: the binary is this test's own.
func TestDockerImageDefaultCommandRuns(t *testing.T) {
	slowtest.Require(t, "runs the image's default command, the 30-night demo, about 30 s")
	r := readDockerfileRuntime(t)
	work := filepath.Join(t.TempDir(), strings.TrimPrefix(r.workdir, "/"))
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := etalakeProcess(t, nil, r.cmd...)
	cmd.Dir = work
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%q %q in %s: %v\n%s", r.entrypoint, r.cmd, r.workdir, err, out)
	}
	for _, want := range []string{"etalake-demo/etalake.duckdb", "etalake-demo-report.html"} {
		if _, err := os.Stat(filepath.Join(work, want)); err != nil {
			t.Errorf("the default command wrote no %s in the working directory: %v", want, err)
		}
	}
}
